//! The simulator proper: event dispatch and packet forwarding over a built network.
//!
//! [`Simulator`] owns the [`World`] (links, endpoints with their routes, the clock), which
//! `scenario::build` makes from a scenario, and the event queue. Measurement is not its business: an [`Observer`] (the run's
//! [`Recorder`](crate::metrics::recorder::Recorder)) asks for timers of its own, is called when
//! they fire and when a web transfer completes, and reads the world then. The observer is a type
//! parameter, so its calls are static and none sits on the per-packet path.
//!
//! Events at the same instant run in insertion order; timers are armed lazily (at most one useful
//! pending event per owner), so a run is a pure function of the scenario.

use crate::engine::queue::EventQueue;
use crate::net::link::{Link, Next};
use crate::net::link_hook::LinkHook;
use crate::net::packet::{Packet, PacketKind};
use crate::net::pipe::{NodeRef, PipeSlab};
use crate::net::topology::LinkId;
use crate::time::SimTime;
use crate::traffic::{Sink, Source, Transfer};

/// An observer's own name for one of its timers.
pub type TimerId = u32;

/// Measurement hooks. Called at the observer's own timers and when a web transfer completes;
/// per packet only through the hooks of the links it measures (`link_hook`).
pub trait Observer {
    /// What a measured link reports to (`LinkHook`).
    type Hook: LinkHook;

    /// The hook of link `link`, if the observer measures it. Asked at every packet a link
    /// moves, for the links the build observes (`Link::observed`: the measured link, a
    /// topology's declared links, traced links) and no others: keep it cheap.
    fn link_hook(&mut self, link: LinkId) -> Option<&mut Self::Hook>;

    /// Called once, after the network is built and the flows' activity events are scheduled:
    /// the observer's first timers, scheduled in this order (ties with other events at the same
    /// instant keep that order).
    fn start(&mut self, world: &World) -> Vec<(SimTime, TimerId)>;

    /// A timer fired at `world.now`. Returns when it should fire next, if ever. The world is
    /// mutable so that the observer may settle links (`World::settle_link`) before it reads
    /// them.
    fn on_timer(&mut self, timer: TimerId, world: &mut World) -> Option<SimTime>;

    /// A web transfer completed (its last segment was acknowledged).
    fn on_transfer(&mut self, _transfer: Transfer) {}
}

/// An observer that measures nothing.
impl Observer for () {
    type Hook = ();

    fn link_hook(&mut self, _link: LinkId) -> Option<&mut ()> {
        None
    }

    fn start(&mut self, _world: &World) -> Vec<(SimTime, TimerId)> {
        Vec::new()
    }

    fn on_timer(&mut self, _timer: TimerId, _world: &mut World) -> Option<SimTime> {
        None
    }
}

#[derive(Copy, Clone, Debug)]
enum Ev {
    /// A link finished serialising its packet.
    TxDone(LinkId),
    /// The packet at the head of a link's pipe reaches the far end.
    Arrive(LinkId),
    QdiscTimer(LinkId),
    SenderTimer(u32),
    ReceiverTimer(u32),
    /// A flow enters an activity interval.
    On(u32),
    /// A flow leaves an activity interval.
    Off(u32),
    /// One of the observer's timers.
    Observer(TimerId),
}

/// One flow's endpoints, its routes and activity, and its pending timers.
pub struct FlowRt {
    pub source: Source,
    pub sink: Sink,
    /// Data packet size, bytes (what a delivered TCP segment counts for).
    pub packet_bytes: u32,
    /// The links of the data route and of the ACK route, in order.
    pub forward: Vec<LinkId>,
    pub reverse: Vec<LinkId>,
    /// Activity intervals `[on, off)` in time order; `None` = until the end of the run.
    pub active: Vec<(SimTime, Option<SimTime>)>,
    started: bool,
    sender_armed: Option<SimTime>,
    receiver_armed: Option<SimTime>,
}

impl FlowRt {
    pub fn new(source: Source, sink: Sink, packet_bytes: u32) -> FlowRt {
        FlowRt {
            source,
            sink,
            packet_bytes,
            forward: Vec::new(),
            reverse: Vec::new(),
            active: Vec::new(),
            started: false,
            sender_armed: None,
            receiver_armed: None,
        }
    }
}

/// What an observer may read: the network and the clock.
pub struct World {
    pub now: SimTime,
    /// The scenario's end.
    pub end: SimTime,
    /// Where the measurement window opens.
    pub warmup: SimTime,
    pub links: Vec<Link>,
    /// The packets in flight on every link (each link's pipe is a list through it).
    pub pipes: PipeSlab,
    pub flows: Vec<FlowRt>,
    /// The measured link (the dumbbell's bottleneck, or a topology's `measure` link).
    pub bottleneck: LinkId,
}

impl World {
    /// Length of the measurement window, seconds.
    pub fn window_secs(&self) -> f64 {
        (self.end - self.warmup).as_secs_f64()
    }

    /// Unique data delivered to flow `i`'s application so far, bytes. TCP counts whole data
    /// packets (headers included), as ns-2 does with `packetSize_`.
    pub fn delivered_bytes(&self, i: usize) -> u64 {
        let fl = &self.flows[i];
        fl.sink.delivered_bytes(fl.packet_bytes)
    }

    /// The measured link (the dumbbell's bottleneck, or a topology's `measure` link).
    pub fn bottleneck(&self) -> &Link {
        &self.links[self.bottleneck as usize]
    }

    /// Brings a FIFO-arithmetic link's glue (its algorithm and counters) and its hook up to
    /// `now` (see `Link::settle`): before a measurement reads them.
    pub fn settle_link<H: LinkHook + ?Sized>(&mut self, link: LinkId, hook: Option<&mut H>) {
        self.links[link as usize].settle(self.now, &self.pipes, hook);
    }
}

/// Every flow's data and ACK routes in one flat array: the forwarding step reads a few bytes
/// per packet from a table that stays in cache, instead of following each flow's `FlowSpec`
/// (hundreds of bytes, two heap vectors) for every hop.
struct Routes {
    /// Per flow: index of its first forward hop in `hops`, forward length, reverse length
    /// (the reverse hops follow the forward ones).
    index: Vec<(u32, u16, u16)>,
    hops: Vec<LinkId>,
}

impl Routes {
    fn new(flows: &[FlowRt]) -> Routes {
        let mut r = Routes {
            index: Vec::with_capacity(flows.len()),
            hops: Vec::new(),
        };
        for fl in flows {
            let len = |v: &Vec<LinkId>| u16::try_from(v.len()).expect("route under 65 536 hops");
            r.index
                .push((r.hops.len() as u32, len(&fl.forward), len(&fl.reverse)));
            r.hops.extend_from_slice(&fl.forward);
            r.hops.extend_from_slice(&fl.reverse);
        }
        r
    }

    /// Link number `hop` of flow `flow`'s data (`ack` false) or ACK route, if the route has it.
    #[inline]
    fn link(&self, flow: usize, ack: bool, hop: usize) -> Option<LinkId> {
        let (start, fwd, rev) = self.index[flow];
        let (base, len) = if ack {
            (start as usize + fwd as usize, rev as usize)
        } else {
            (start as usize, fwd as usize)
        };
        (hop < len).then(|| self.hops[base + hop])
    }
}

/// The discrete-event simulator of one scenario, with observer `O` measuring it.
pub struct Simulator<O: Observer> {
    world: World,
    routes: Routes,
    events: EventQueue<Ev>,
    next_packet_id: u64,
    scratch: Vec<Packet>,
    qdisc_armed: Vec<Option<SimTime>>,
    /// Per link: whether its qdisc sees packets (queued, or FIFO arithmetic through the
    /// glue), so its timer must be polled after each packet event.
    polls: Vec<bool>,
    processed: u64,
    observer: O,
}

fn arm(
    events: &mut EventQueue<Ev>,
    armed: &mut Option<SimTime>,
    next: Option<SimTime>,
    now: SimTime,
    ev: Ev,
) {
    // Keep at most one *useful* pending event per timer owner: push only when the deadline is
    // earlier than the one already pending. A later-moving deadline is found when that event fires.
    if let Some(t) = next {
        let t = t.max(now);
        if armed.is_none_or(|a| t < a) {
            events.push(t, ev);
            *armed = Some(t);
        }
    }
}

impl<O: Observer> Simulator<O> {
    /// Takes a built world and schedules the flows' activity, the observer's timers and the
    /// qdiscs' first timers, in that order.
    pub fn new(world: World, mut observer: O) -> Self {
        let mut events = EventQueue::new();
        for (i, fl) in world.flows.iter().enumerate() {
            for &(on, off) in &fl.active {
                events.push(on, Ev::On(i as u32));
                if let Some(off) = off {
                    events.push(off, Ev::Off(i as u32));
                }
            }
        }
        let polls = world.links.iter().map(|l| l.polls_qdisc()).collect();
        let routes = Routes::new(&world.flows);
        for (t, id) in observer.start(&world) {
            events.push(t, Ev::Observer(id));
        }
        let mut qdisc_armed = vec![None; world.links.len()];
        for (i, l) in world.links.iter().enumerate() {
            arm(
                &mut events,
                &mut qdisc_armed[i],
                l.qdisc.next_timer(),
                SimTime::ZERO,
                Ev::QdiscTimer(i as LinkId),
            );
        }
        Simulator {
            world,
            routes,
            events,
            next_packet_id: 0,
            scratch: Vec::new(),
            qdisc_armed,
            polls,
            processed: 0,
            observer,
        }
    }

    /// The current simulated time.
    pub fn now(&self) -> SimTime {
        self.world.now
    }

    /// Events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.processed
    }

    pub fn world(&self) -> &World {
        &self.world
    }

    pub fn observer(&self) -> &O {
        &self.observer
    }

    /// The world and the observer, for collecting results.
    pub fn into_parts(self) -> (World, O) {
        (self.world, self.observer)
    }

    /// Processes the next event if there is one at or before the scenario's end; returns its
    /// time, or `None` when the run has nothing left to do.
    pub fn step(&mut self) -> Option<SimTime> {
        let (t, ev) = self.events.pop_until(self.world.end)?;
        self.world.now = t;
        self.processed += 1;
        self.handle(ev);
        Some(t)
    }

    /// Processes events up to and including `until` (capped at the scenario's duration), then
    /// sets the clock to `until`.
    pub fn run_until(&mut self, until: SimTime) {
        let until = until.min(self.world.end);
        while let Some((t, ev)) = self.events.pop_until(until) {
            self.world.now = t;
            self.processed += 1;
            self.handle(ev);
        }
        self.world.now = until;
    }

    #[inline]
    fn handle(&mut self, ev: Ev) {
        let now = self.world.now;
        match ev {
            Ev::TxDone(l) => {
                let link = &mut self.world.links[l as usize];
                let hook = hook_of(&mut self.observer, link, l);
                let (arrival, next_done) = link.on_tx_done(now, &mut self.world.pipes, hook);
                self.schedule(l, arrival);
                self.schedule(l, next_done);
                self.poll_qdisc_timer(l);
            }
            Ev::Arrive(l) => {
                let link = &mut self.world.links[l as usize];
                let hook = hook_of(&mut self.observer, link, l);
                let Some((node, next)) = link.take_arrival(now, &mut self.world.pipes, hook) else {
                    return;
                };
                if let Some(t) = next {
                    self.events.push(t, Ev::Arrive(l));
                }
                self.forward_node(node);
            }
            Ev::QdiscTimer(l) => {
                let li = l as usize;
                if self.qdisc_armed[li].is_some_and(|a| a <= now) {
                    self.qdisc_armed[li] = None;
                }
                let link = &mut self.world.links[li];
                if link.qdisc.next_timer().is_some_and(|t| t <= now) {
                    let hook = hook_of(&mut self.observer, link, l);
                    link.on_qdisc_timer(now, &self.world.pipes, hook);
                }
                self.poll_qdisc_timer(l);
            }
            Ev::SenderTimer(f) => {
                let fl = &mut self.world.flows[f as usize];
                if fl.sender_armed.is_some_and(|a| a <= now) {
                    fl.sender_armed = None;
                }
                if fl.source.next_timer().is_some_and(|t| t <= now) {
                    let mut out = std::mem::take(&mut self.scratch);
                    fl.source.on_timer(now, &mut |p| out.push(p));
                    self.send_all(&mut out);
                    self.scratch = out;
                }
                self.arm_sender(f);
            }
            Ev::ReceiverTimer(f) => {
                let fl = &mut self.world.flows[f as usize];
                if fl.receiver_armed.is_some_and(|a| a <= now) {
                    fl.receiver_armed = None;
                }
                if fl.sink.next_timer().is_some_and(|t| t <= now) {
                    let mut out = std::mem::take(&mut self.scratch);
                    fl.sink.on_timer(now, &mut |p| out.push(p));
                    self.send_all(&mut out);
                    self.scratch = out;
                }
                self.arm_receiver(f);
            }
            Ev::On(f) => {
                let fl = &mut self.world.flows[f as usize];
                let first = !fl.started;
                fl.started = true;
                let mut out = std::mem::take(&mut self.scratch);
                fl.source.on(now, first, &mut |p| out.push(p));
                self.send_all(&mut out);
                self.scratch = out;
                self.arm_sender(f);
            }
            Ev::Off(f) => self.world.flows[f as usize].source.off(),
            Ev::Observer(id) => {
                if let Some(next) = self.observer.on_timer(id, &mut self.world) {
                    self.events.push(next, Ev::Observer(id));
                }
            }
        }
    }

    #[inline]
    fn schedule(&mut self, l: LinkId, next: Next) {
        match next {
            Next::Nothing => {}
            Next::TxDone(t) => self.events.push(t, Ev::TxDone(l)),
            Next::Arrive(t) => self.events.push(t, Ev::Arrive(l)),
        }
    }

    /// A link the simulator does not poll has no qdisc timer to arm (checked in debug builds).
    fn untimed(&self, l: LinkId) -> bool {
        self.world.links[l as usize].qdisc.next_timer().is_none()
    }

    fn poll_qdisc_timer(&mut self, l: LinkId) {
        let li = l as usize;
        let next = self.world.links[li].qdisc.next_timer();
        arm(
            &mut self.events,
            &mut self.qdisc_armed[li],
            next,
            self.world.now,
            Ev::QdiscTimer(l),
        );
    }

    fn arm_sender(&mut self, f: u32) {
        let fl = &mut self.world.flows[f as usize];
        arm(
            &mut self.events,
            &mut fl.sender_armed,
            fl.source.next_timer(),
            self.world.now,
            Ev::SenderTimer(f),
        );
    }

    fn arm_receiver(&mut self, f: u32) {
        let fl = &mut self.world.flows[f as usize];
        arm(
            &mut self.events,
            &mut fl.receiver_armed,
            fl.sink.next_timer(),
            self.world.now,
            Ev::ReceiverTimer(f),
        );
    }

    /// Injects packets an endpoint emitted at the first link of their path.
    fn send_all(&mut self, out: &mut Vec<Packet>) {
        for mut pkt in out.drain(..) {
            pkt.id = self.next_packet_id;
            self.next_packet_id += 1;
            pkt.hop = 0;
            self.forward_from(pkt, 0);
        }
    }

    /// The packet in slab node `node` reached the end of link `path[pkt.hop]`: move it on, or
    /// deliver it. Into a FIFO-arithmetic link the node itself moves (no copy of the packet);
    /// anything else gets the packet copied out of the slab.
    #[inline]
    fn forward_node(&mut self, node: NodeRef) {
        let pkt = self.world.pipes.packet_mut(node);
        pkt.hop += 1;
        let hop = pkt.hop as usize;
        let (fi, ack) = (pkt.flow as usize, pkt.kind == PacketKind::Ack);
        let Some(l) = self.routes.link(fi, ack, hop) else {
            // The end of the route: the endpoint reads the packet where it lies.
            let mut out = std::mem::take(&mut self.scratch);
            let (_, pkt) = self.world.pipes.get(node);
            let kind = pkt.kind;
            deliver(
                &mut self.world.flows,
                &mut self.observer,
                self.world.now,
                pkt,
                &mut out,
            );
            self.world.pipes.free(node);
            self.after_delivery(kind, fi as u32, &mut out);
            self.scratch = out;
            return;
        };
        let link = &mut self.world.links[l as usize];
        if link.takes_nodes() {
            let hook = hook_of(&mut self.observer, link, l);
            let next = link.offer_node(self.world.now, node, &mut self.world.pipes, hook);
            self.schedule(l, next);
            if self.polls[l as usize] {
                self.poll_qdisc_timer(l);
            }
            debug_assert!(self.polls[l as usize] || self.untimed(l));
            return;
        }
        let pkt = self.world.pipes.release(node);
        self.forward_from(pkt, hop);
    }

    #[inline]
    fn forward_from(&mut self, pkt: Packet, hop: usize) {
        let fi = pkt.flow as usize;
        let now = self.world.now;
        if let Some(l) = self.routes.link(fi, pkt.kind == PacketKind::Ack, hop) {
            let polls = self.polls[l as usize];
            let link = &mut self.world.links[l as usize];
            let hook = hook_of(&mut self.observer, link, l);
            let next = link.offer(now, pkt, &mut self.world.pipes, hook);
            self.schedule(l, next);
            if polls {
                self.poll_qdisc_timer(l);
            }
            debug_assert!(polls || self.untimed(l));
            return;
        }
        let mut out = std::mem::take(&mut self.scratch);
        deliver(
            &mut self.world.flows,
            &mut self.observer,
            now,
            &pkt,
            &mut out,
        );
        self.after_delivery(pkt.kind, fi as u32, &mut out);
        self.scratch = out;
    }

    /// After an endpoint took a packet: sends what it emitted and re-arms its timer.
    #[inline]
    fn after_delivery(&mut self, kind: PacketKind, flow: u32, out: &mut Vec<Packet>) {
        self.send_all(out);
        match kind {
            PacketKind::Data => self.arm_receiver(flow),
            PacketKind::Ack => self.arm_sender(flow),
        }
    }
}

/// The observer's hook of `link` (number `l`) if the build observes it: the other links (most
/// of a dumbbell's) skip the observer's lookup.
#[inline]
fn hook_of<'a, O: Observer>(
    observer: &'a mut O,
    link: &Link,
    l: LinkId,
) -> Option<&'a mut O::Hook> {
    if link.observed() {
        observer.link_hook(l)
    } else {
        None
    }
}

/// Hands a packet at the end of its route to its endpoint (data to the sink, an ACK to the
/// source); what the endpoint sends in response goes to `out`. A free function over the parts
/// of the simulator it needs, so the packet may be borrowed from the slab meanwhile.
#[inline]
fn deliver<O: Observer>(
    flows: &mut [FlowRt],
    observer: &mut O,
    now: SimTime,
    pkt: &Packet,
    out: &mut Vec<Packet>,
) {
    let fl = &mut flows[pkt.flow as usize];
    match pkt.kind {
        PacketKind::Data => fl.sink.on_data(now, pkt, &mut |p| out.push(p)),
        PacketKind::Ack => {
            if let Some(t) = fl.source.on_ack(now, pkt, &mut |p| out.push(p)) {
                observer.on_transfer(t);
            }
        }
    }
}
