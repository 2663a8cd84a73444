// aqmlab's dumbbell in ns-3.44, driven by a run file that aqmlab.ns3.translate writes.
//
//   src i --access i--> R1 ==bottleneck==> R2 --sink i--> dst i      (and the same links back)
//
// One source and one destination host per flow. Every link is a point-to-point link; every
// device but the bottleneck's forward one has no queue disc and a plain DropTail device queue
// (the access buffer given per flow, 10 000 packets elsewhere). The bottleneck's forward device
// has a 1-packet device queue under the queue disc the run file names, with the attributes it
// gives (ns-3's way of putting an AQM in front of a NetDevice), so the backlog sits in the queue
// disc. Static routes: each router has its connected /30s and one aggregate route across the
// bottleneck; hosts use a default route. Each flow is a bulk TCP sender (the socket below, fed
// as BulkSendApplication does) -> PacketSink connection; `Config::SetDefault` lines of the run
// file set ns-3's TCP.
//
// The senders' sockets are ns-3's TcpSocketBase with four changes, each to what ns-2's agents,
// Linux, the RFCs and aqmlab's sender do:
// 1. A retransmission of the first unacknowledged segment in fast recovery restarts the
//    retransmission timer (Linux: tcp_xmit_retransmit_queue). ns-3.44 starts the timer on a
//    retransmission only if none is running (RFC 6298 rule 5.1), so the timer still counts from
//    the last new ACK; with a full DropTail queue the duplicate ACKs arrive most of an RTT after
//    that ACK, and the timer (RTO close to the RTT) expires before the fast retransmission can
//    be acknowledged: a spurious timeout, then go-back-N resends segments the receiver holds.
// 2. The ACK that ends fast recovery sets cwnd to ssthresh and does not also grow it
//    (RFC 5681 section 3.2 step 6; Linux grows it by the segments that ACK newly delivers, which
//    after SACK recovery is the retransmission alone). ns-3.44 hands the congestion control
//    every segment the ACK covers, most of them SACKed long before: TcpLinuxReno adds
//    covered / cwnd segments at once, 2 of a window of 11. And TcpLinuxReno's linear-increase
//    counter is cleared when recovery starts, as Linux clears snd_cwnd_cnt
//    (tcp_init_cwnd_reduction); ns-3.44 keeps the count of the window before the loss, which
//    then adds one more segment on the first ACK after recovery. Together these shortened each
//    flow's sawtooth by about a quarter (3 segments of 11 at once).
// 3. Without SACK, duplicate ACKs start a fast retransmit only when they cover more than
//    `recover`, the highest segment sent when the last recovery or timeout began (RFC 6582
//    section 3.2 step 1; ns-2 `highest_ack_ > recover_`; Linux holds the loss or recovery state
//    until something above `high_seq` is acknowledged). ns-3.44 tests `ack >= m_recover` with
//    m_recover one byte past that segment, so the duplicate ACKs of exactly `recover`, which
//    the go-back-N resends after a timeout draw from a receiver that already holds them
//    (RFC 6582 section 4), started a recovery: ssthresh halved again and the segment just sent
//    was resent.
// 4. Without SACK, the ACK that ends fast recovery forgets the duplicate ACKs counted as SACKs
//    of the segments after the head (ns-3's NewReno emulation of SACK; Linux resets its count,
//    tcp_reset_reno_sack, when recovery ends). ns-3.44 keeps them, and when the new head is one
//    of those guesses it marks it lost: it resent that segment at once in the open state and
//    started a recovery on the next single duplicate ACK.
//
// Run file (one directive per line, '#' starts a comment, durations in integer ns, rates in bit/s):
//   seed N                      RngSeedManager run number
//   time DURATION WARMUP SAMPLE simulated time, start of the measurement window, queue sampling
//   bottleneck RATE DELAY       forward and reverse
//   sink RATE DELAY             every sink link
//   default PATH VALUE          Config::SetDefault(PATH, StringValue(VALUE))
//   qdisc TYPEID                the bottleneck's queue disc
//   qattr NAME VALUE            one of its attributes (StringValue)
//   flow RATE DELAY BUFFER START  one flow: access link rate, one-way delay, device queue
//                               (packets), start time
//   trace PATH                  optional: write every flow's TCP events to PATH, one line each,
//                               `flow t_s var value` (whole run; var: cwnd and ssthresh in
//                               segments, state as ns-3's TcpCongState number, rto in seconds;
//                               per packet, as the segment's first sequence number: tx for every
//                               data segment the sender sends, retx when that send is a
//                               retransmission, drop when the bottleneck drops it; ack with the
//                               acknowledgement number of every ACK the sender receives)
//
// Prints one JSON object on stdout. Over [warmup, duration], as aqmlab's summary: bytes that
// left the bottleneck (on the wire), queue disc arrivals (enqueued + dropped before enqueue),
// drops (before enqueue and after dequeue), ECN marks, the queue disc's length sampled every
// SAMPLE (mean, std), the summed sojourn time of packets leaving it; per flow: payload bytes
// its sink received, segments its sender retransmitted, retransmission timeouts (entries into
// CA_LOSS) and its packets dropped at the bottleneck. Whole run: drops at the access devices, events
// executed, wall-clock seconds of the simulation itself (set-up excluded); and the bottleneck's
// utilisation over the window, for scripts that read one number.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// The congestion control of a socket during the ACK that ends fast recovery: everything is
/// the socket's own, but the window does not grow on that ACK (change 2 at the top).
class NoGrowth : public TcpCongestionOps
{
  public:
    explicit NoGrowth(Ptr<TcpCongestionOps> inner)
        : m_inner(inner)
    {
    }

    std::string GetName() const override
    {
        return m_inner->GetName();
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t inFlight) override
    {
        return m_inner->GetSsThresh(tcb, inFlight);
    }

    void IncreaseWindow(Ptr<TcpSocketState>, uint32_t) override
    {
    }

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t acked, const Time& rtt) override
    {
        m_inner->PktsAcked(tcb, acked, rtt);
    }

    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t state) override
    {
        m_inner->CongestionStateSet(tcb, state);
    }

    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override
    {
        m_inner->CwndEvent(tcb, event);
    }

    bool HasCongControl() const override
    {
        return m_inner->HasCongControl();
    }

    void CongControl(Ptr<TcpSocketState> tcb,
                     const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override
    {
        m_inner->CongControl(tcb, rc, rs);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return m_inner->Fork();
    }

  private:
    Ptr<TcpCongestionOps> m_inner;
};

/// TcpSocketBase with the four changes at the top.
class RearmingTcpSocket : public TcpSocketBase
{
  protected:
    uint32_t SendDataPacket(SequenceNumber32 seq, uint32_t maxSize, bool withAck) override
    {
        const bool head = m_tcb->m_congState == TcpSocketState::CA_RECOVERY &&
                          seq == m_txBuffer->HeadSequence();
        uint32_t sent = TcpSocketBase::SendDataPacket(seq, maxSize, withAck);
        if (head && sent > 0)
        {
            m_retxEvent.Cancel();
            m_retxEvent = Simulator::Schedule(m_rto.Get(), &RearmingTcpSocket::ReTxTimeout, this);
        }
        return sent;
    }

    void ReceivedAck(Ptr<Packet> packet, const TcpHeader& header) override
    {
        // Change 4: the ACK that ends fast recovery without SACK forgets the duplicate ACKs
        // counted as SACKs of the segments after the head, before the buffer discards up to it.
        if (!m_sackEnabled && m_tcb->m_congState == TcpSocketState::CA_RECOVERY &&
            header.GetAckNumber() >= m_recover)
        {
            m_txBuffer->ResetRenoSack();
        }
        TcpSocketBase::ReceivedAck(packet, header);
    }

    void ProcessAck(const SequenceNumber32& ack,
                    bool scoreboardUpdated,
                    uint32_t delivered,
                    const SequenceNumber32& oldHead,
                    bool receivedData) override
    {
        const auto before = m_tcb->m_congState.Get();
        // Change 3: without SACK, duplicate ACKs that do not cover more than `recover` (the
        // highest segment sent when the last recovery or timeout began) start no fast
        // retransmit. ns-3 compares the ACK with one byte past that segment, so `recover` is
        // moved one byte on for this ACK; both are put back after it.
        if (!m_sackEnabled && ack == m_recover && ack == oldHead && ack < m_tcb->m_highTxMark &&
            !receivedData &&
            (before == TcpSocketState::CA_OPEN || before == TcpSocketState::CA_DISORDER))
        {
            const SequenceNumber32 recover = m_recover;
            const bool active = m_recoverActive;
            m_recover = recover + 1;
            m_recoverActive = true;
            TcpSocketBase::ProcessAck(ack, scoreboardUpdated, delivered, oldHead, receivedData);
            m_recover = recover;
            m_recoverActive = active;
            return;
        }
        if (before == TcpSocketState::CA_RECOVERY && ack >= m_recover)
        {
            Ptr<TcpCongestionOps> cc = m_congestionControl;
            m_congestionControl = Create<NoGrowth>(cc);
            TcpSocketBase::ProcessAck(ack, scoreboardUpdated, delivered, oldHead, receivedData);
            m_congestionControl = cc;
            return;
        }
        TcpSocketBase::ProcessAck(ack, scoreboardUpdated, delivered, oldHead, receivedData);
        // TcpLinuxReno holds nothing but its linear-increase counter: a fresh one clears it.
        if (before != TcpSocketState::CA_RECOVERY &&
            m_tcb->m_congState == TcpSocketState::CA_RECOVERY &&
            m_congestionControl->GetInstanceTypeId() == TcpLinuxReno::GetTypeId())
        {
            SetCongestionControlAlgorithm(CreateObject<TcpLinuxReno>());
        }
    }
};

/// A sender socket on `node`, built as TcpL4Protocol::CreateSocket builds its sockets (the
/// protocol's congestion control, recovery and RTT estimator types; attribute defaults).
Ptr<TcpSocketBase>
MakeSender(Ptr<Node> node)
{
    Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
    TypeIdValue cc;
    TypeIdValue recovery;
    TypeIdValue rtt;
    tcp->GetAttribute("SocketType", cc);
    tcp->GetAttribute("RecoveryType", recovery);
    tcp->GetAttribute("RttEstimatorType", rtt);
    Ptr<RearmingTcpSocket> s = CreateObject<RearmingTcpSocket>();
    ObjectFactory f;
    f.SetTypeId(rtt.Get());
    s->SetRtt(f.Create<RttEstimator>());
    s->SetNode(node);
    s->SetTcp(tcp);
    f.SetTypeId(cc.Get());
    s->SetCongestionControlAlgorithm(f.Create<TcpCongestionOps>());
    f.SetTypeId(recovery.Get());
    s->SetRecoveryAlgorithm(f.Create<TcpRecoveryOps>());
    tcp->AddSocket(s);
    return s;
}

/// Keeps the send buffer full, in 64 KiB writes, as BulkSendApplication with that SendSize does:
/// the default 512-byte ones fill the buffer with small packets that every segment is then
/// assembled from, which costs ns-3 most of its time at 155 Mbps; and topping the buffer up by
/// what each ACK frees (a write of a segment or less per ACK) costs more events and CPU for the
/// same run (10 flows, 100 s: 2.56 M against 2.46 M events, identical output). The buffer
/// (16 MiB) never runs dry, so when the writes happen does not change what TCP sends.
void
Fill(Ptr<Socket> s, uint32_t)
{
    constexpr uint32_t write = 1 << 16;
    while (s->GetTxAvailable() >= write)
    {
        if (s->Send(Create<Packet>(write)) < 0)
        {
            break;
        }
    }
}

void
Connected(Ptr<Socket> s)
{
    Fill(s, 0);
}

void
Open(Ptr<Socket> s, Address to)
{
    s->SetConnectCallback(MakeCallback(&Connected), MakeNullCallback<void, Ptr<Socket>>());
    s->SetSendCallback(MakeCallback(&Fill));
    NS_ABORT_MSG_UNLESS(s->Connect(to) == 0, "a sender could not connect");
}

struct FlowSpec
{
    uint64_t rateBps;
    int64_t delayNs;
    uint32_t buffer;
    int64_t startNs;
};

struct Spec
{
    uint32_t seed = 1;
    int64_t durationNs = 0;
    int64_t warmupNs = 0;
    int64_t sampleNs = 20000000;
    uint64_t bottleneckBps = 0;
    int64_t bottleneckDelayNs = 0;
    uint64_t sinkBps = 1000000000;
    int64_t sinkDelayNs = 0;
    std::vector<std::pair<std::string, std::string>> defaults;
    std::string qdisc;
    std::vector<std::pair<std::string, std::string>> qattrs;
    std::vector<FlowSpec> flows;
    std::string trace;
};

Spec
Read(const std::string& path)
{
    std::ifstream in(path);
    NS_ABORT_MSG_UNLESS(in, "cannot read the run file " << path);
    Spec s;
    std::string line;
    int n = 0;
    while (std::getline(in, line))
    {
        n++;
        auto hash = line.find('#');
        if (hash != std::string::npos)
        {
            line.resize(hash);
        }
        std::istringstream w(line);
        std::string key;
        if (!(w >> key))
        {
            continue;
        }
        bool ok = true;
        if (key == "seed")
        {
            ok = bool(w >> s.seed);
        }
        else if (key == "time")
        {
            ok = bool(w >> s.durationNs >> s.warmupNs >> s.sampleNs);
        }
        else if (key == "bottleneck")
        {
            ok = bool(w >> s.bottleneckBps >> s.bottleneckDelayNs);
        }
        else if (key == "sink")
        {
            ok = bool(w >> s.sinkBps >> s.sinkDelayNs);
        }
        else if (key == "default" || key == "qattr")
        {
            std::string name;
            std::string value;
            ok = bool(w >> name >> value);
            (key == "default" ? s.defaults : s.qattrs).emplace_back(name, value);
        }
        else if (key == "qdisc")
        {
            ok = bool(w >> s.qdisc);
        }
        else if (key == "trace")
        {
            ok = bool(w >> s.trace);
        }
        else if (key == "flow")
        {
            FlowSpec f{};
            ok = bool(w >> f.rateBps >> f.delayNs >> f.buffer >> f.startNs);
            s.flows.push_back(f);
        }
        else
        {
            ok = false;
        }
        NS_ABORT_MSG_UNLESS(ok, path << ":" << n << ": cannot read '" << line << "'");
    }
    NS_ABORT_MSG_UNLESS(s.durationNs > 0 && s.bottleneckBps > 0 && !s.qdisc.empty() &&
                            !s.flows.empty(),
                        path << ": needs time, bottleneck, qdisc and at least one flow");
    return s;
}

struct PerFlow
{
    Ptr<TcpSocketBase> sender;
    Ptr<PacketSink> sink;
    uint64_t rxAtWarmup = 0;
    uint64_t retransmits = 0;
    uint64_t timeouts = 0;
    uint64_t drops = 0;
};

struct Counters
{
    uint64_t txBytes = 0;
    uint64_t enqueued = 0;
    uint64_t droppedBeforeEnqueue = 0;
    uint64_t drops = 0;
    uint64_t marks = 0;
    uint64_t sojourns = 0;
    double sojournSum = 0;
    uint64_t samples = 0;
    double queueSum = 0;
    double queueSum2 = 0;
    uint64_t accessDrops = 0;
    Time warmup;
    Time stop;
    Time sample;
    Ptr<QueueDisc> qdisc;
    uint32_t srcNet = 0;
    std::vector<PerFlow> flows;
    uint32_t segmentSize = 1;
    std::FILE* trace = nullptr;
};

Counters g;

bool
Measuring()
{
    return Simulator::Now() >= g.warmup;
}

void
OnTx(Ptr<const Packet> p)
{
    if (Measuring())
    {
        g.txBytes += p->GetSize();
    }
}

void
OnEnqueue(Ptr<const QueueDiscItem>)
{
    g.enqueued += Measuring();
}

void
Trace(size_t flow, const char* var, double value)
{
    std::fprintf(g.trace, "%zu %.9f %s %.10g\n", flow, Simulator::Now().GetSeconds(), var, value);
}

/// The flow whose source host sent a packet the bottleneck dropped (or none).
std::optional<size_t>
FlowOf(Ptr<const QueueDiscItem> item)
{
    auto ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (!ip)
    {
        return std::nullopt;
    }
    uint32_t k = (ip->GetHeader().GetSource().Get() - g.srcNet) >> 2;
    if (k >= g.flows.size())
    {
        return std::nullopt;
    }
    return k;
}

/// Counts a bottleneck drop against its flow (in the window), and traces it (whole run).
void
CountFlowDrop(Ptr<const QueueDiscItem> item)
{
    auto k = FlowOf(item);
    if (!k)
    {
        return;
    }
    if (g.trace)
    {
        TcpHeader h;
        if (item->GetPacket()->PeekHeader(h))
        {
            Trace(*k, "drop", h.GetSequenceNumber().GetValue());
        }
    }
    if (Measuring())
    {
        g.flows[*k].drops++;
    }
}

void
OnDropBeforeEnqueue(Ptr<const QueueDiscItem> item, const char*)
{
    CountFlowDrop(item);
    if (Measuring())
    {
        g.droppedBeforeEnqueue++;
        g.drops++;
    }
}

void
OnDropAfterDequeue(Ptr<const QueueDiscItem> item, const char*)
{
    CountFlowDrop(item);
    g.drops += Measuring();
}

void
OnMark(Ptr<const QueueDiscItem>, const char*)
{
    g.marks += Measuring();
}

void
OnSojourn(Time t)
{
    if (Measuring())
    {
        g.sojourns++;
        g.sojournSum += t.GetSeconds();
    }
}

void
OnAccessDrop(Ptr<const Packet>)
{
    g.accessDrops++;
}

void
OnRetransmission(size_t i,
                 Ptr<const Packet>,
                 const TcpHeader& h,
                 const Address&,
                 const Address&,
                 Ptr<const TcpSocketBase>)
{
    g.flows[i].retransmits += Measuring();
    if (g.trace)
    {
        Trace(i, "retx", h.GetSequenceNumber().GetValue());
    }
}

/// Every segment the sender sends (data: tx with its sequence number) or receives (ack).
void
OnTcpTx(size_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() > 0)
    {
        Trace(i, "tx", h.GetSequenceNumber().GetValue());
    }
}

void
OnTcpRx(size_t i, Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (h.GetFlags() & TcpHeader::ACK)
    {
        Trace(i, "ack", h.GetAckNumber().GetValue());
    }
}

void
OnRto(size_t i, Time, Time rto)
{
    Trace(i, "rto", rto.GetSeconds());
}

void
OnCongState(size_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_LOSS && Measuring())
    {
        g.flows[i].timeouts++;
    }
    if (g.trace)
    {
        Trace(i, "state", now);
    }
}

void
OnCwnd(size_t i, uint32_t, uint32_t bytes)
{
    Trace(i, "cwnd", double(bytes) / g.segmentSize);
}

void
OnSsthresh(size_t i, uint32_t, uint32_t bytes)
{
    Trace(i, "ssthresh", double(bytes) / g.segmentSize);
}

void
HookSender(size_t i)
{
    Ptr<Socket> s = g.flows[i].sender;
    s->TraceConnectWithoutContext("Retransmission", MakeBoundCallback(&OnRetransmission, i));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, i));
    if (g.trace)
    {
        s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
        s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnSsthresh, i));
        s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTcpTx, i));
        s->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnTcpRx, i));
        s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, i));
    }
}

void
SampleQueue()
{
    double q = g.qdisc->GetNPackets();
    g.samples++;
    g.queueSum += q;
    g.queueSum2 += q * q;
    if (Simulator::Now() + g.sample < g.stop)
    {
        Simulator::Schedule(g.sample, &SampleQueue);
    }
}

void
AtWarmup()
{
    for (auto& f : g.flows)
    {
        f.rxAtWarmup = f.sink->GetTotalRx();
    }
    SampleQueue();
}

Ipv4InterfaceContainer
Number(NetDeviceContainer devs, uint32_t net, uint32_t k)
{
    Ipv4AddressHelper a;
    a.SetBase(Ipv4Address(net + (k << 2)), Ipv4Mask("255.255.255.252"));
    return a.Assign(devs);
}

std::string
Bps(uint64_t bps)
{
    return std::to_string(bps) + "bps";
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string runFile;
    CommandLine cmd(__FILE__);
    cmd.AddValue("run", "the run file (see the top of dumbbell.cc)", runFile);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(runFile.empty(), "--run=FILE is required");
    Spec s = Read(runFile);
    RngSeedManager::SetRun(s.seed);
    for (const auto& [path, value] : s.defaults)
    {
        Config::SetDefault(path, StringValue(value));
    }
    g.warmup = NanoSeconds(s.warmupNs);
    g.stop = NanoSeconds(s.durationNs);
    g.sample = NanoSeconds(s.sampleNs);
    if (!s.trace.empty())
    {
        g.trace = std::fopen(s.trace.c_str(), "w");
        NS_ABORT_MSG_UNLESS(g.trace, "cannot write the trace file " << s.trace);
        g.segmentSize = 536; // ns-3's default, unless the run file sets it
        for (const auto& [path, value] : s.defaults)
        {
            if (path == "ns3::TcpSocket::SegmentSize")
            {
                g.segmentSize = std::max(1, std::stoi(value));
            }
        }
    }
    const uint32_t n = s.flows.size();
    NS_ABORT_MSG_IF(n > 16000, "at most 16000 flows (one /30 per access link in a /16)");

    NodeContainer routers(2);
    NodeContainer src(n);
    NodeContainer dst(n);
    InternetStackHelper stack;
    stack.Install(routers);
    stack.Install(src);
    stack.Install(dst);

    PointToPointHelper sinkLink;
    sinkLink.SetDeviceAttribute("DataRate", StringValue(Bps(s.sinkBps)));
    sinkLink.SetChannelAttribute("Delay", TimeValue(NanoSeconds(s.sinkDelayNs)));
    sinkLink.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("10000p"));
    PointToPointHelper core;
    core.SetDeviceAttribute("DataRate", StringValue(Bps(s.bottleneckBps)));
    core.SetChannelAttribute("Delay", TimeValue(NanoSeconds(s.bottleneckDelayNs)));
    core.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));

    const uint32_t srcNet = Ipv4Address("10.1.0.0").Get();
    g.srcNet = srcNet;
    const uint32_t dstNet = Ipv4Address("10.2.0.0").Get();
    TrafficControlHelper none;
    std::vector<Ipv4Address> dstAddr(n);
    for (uint32_t i = 0; i < n; i++)
    {
        const FlowSpec& f = s.flows[i];
        PointToPointHelper access;
        access.SetDeviceAttribute("DataRate", StringValue(Bps(f.rateBps)));
        access.SetChannelAttribute("Delay", TimeValue(NanoSeconds(f.delayNs)));
        access.SetQueue("ns3::DropTailQueue",
                        "MaxSize",
                        StringValue(std::to_string(f.buffer) + "p"));
        NetDeviceContainer a = access.Install(src.Get(i), routers.Get(0));
        NetDeviceContainer k = sinkLink.Install(routers.Get(1), dst.Get(i));
        Number(a, srcNet, i);
        dstAddr[i] = Number(k, dstNet, i).GetAddress(1);
        none.Uninstall(a);
        none.Uninstall(k);
        // The sender's own device: where an access link overflows, as in aqmlab.
        DynamicCast<PointToPointNetDevice>(a.Get(0))->GetQueue()->TraceConnectWithoutContext(
            "Drop",
            MakeCallback(&OnAccessDrop));
    }
    NetDeviceContainer b = core.Install(routers.Get(0), routers.Get(1));
    Ipv4InterfaceContainer bi = Number(b, Ipv4Address("10.0.0.0").Get(), 0);
    none.Uninstall(b);
    TrafficControlHelper tch;
    tch.SetRootQueueDisc(s.qdisc);
    g.qdisc = tch.Install(b.Get(0)).Get(0);
    // Attributes take effect when the queue disc initialises, at the start of the run.
    for (const auto& [name, value] : s.qattrs)
    {
        g.qdisc->SetAttribute(name, StringValue(value));
    }
    g.qdisc->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnEnqueue));
    g.qdisc->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&OnDropBeforeEnqueue));
    g.qdisc->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&OnDropAfterDequeue));
    g.qdisc->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));
    g.qdisc->TraceConnectWithoutContext("SojournTime", MakeCallback(&OnSojourn));
    b.Get(0)->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&OnTx));
    DynamicCast<PointToPointNetDevice>(b.Get(1))->GetQueue()->SetMaxSize(QueueSize("10000p"));

    Ipv4StaticRoutingHelper routing;
    Ipv4Mask slash16("255.255.0.0");
    routing.GetStaticRouting(routers.Get(0)->GetObject<Ipv4>())
        ->AddNetworkRouteTo(Ipv4Address(dstNet),
                            slash16,
                            bi.GetAddress(1),
                            routers.Get(0)->GetObject<Ipv4>()->GetInterfaceForDevice(b.Get(0)));
    routing.GetStaticRouting(routers.Get(1)->GetObject<Ipv4>())
        ->AddNetworkRouteTo(Ipv4Address(srcNet),
                            slash16,
                            bi.GetAddress(0),
                            routers.Get(1)->GetObject<Ipv4>()->GetInterfaceForDevice(b.Get(1)));
    for (uint32_t i = 0; i < n; i++)
    {
        routing.GetStaticRouting(src.Get(i)->GetObject<Ipv4>())
            ->SetDefaultRoute(Ipv4Address(srcNet + (i << 2) + 2), 1);
        routing.GetStaticRouting(dst.Get(i)->GetObject<Ipv4>())
            ->SetDefaultRoute(Ipv4Address(dstNet + (i << 2) + 1), 1);
    }

    const uint16_t port = 5000;
    g.flows.resize(n);
    for (uint32_t i = 0; i < n; i++)
    {
        g.flows[i].sender = MakeSender(src.Get(i));
        HookSender(i);
        Simulator::Schedule(NanoSeconds(s.flows[i].startNs),
                            &Open,
                            Ptr<Socket>(g.flows[i].sender),
                            Address(InetSocketAddress(dstAddr[i], port)));
        PacketSinkHelper ps("ns3::TcpSocketFactory",
                            InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = ps.Install(dst.Get(i));
        sinkApp.Start(Seconds(0));
        g.flows[i].sink = DynamicCast<PacketSink>(sinkApp.Get(0));
    }
    Simulator::Schedule(g.warmup, &AtWarmup);
    Simulator::Stop(g.stop);
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double window = (g.stop - g.warmup).GetSeconds();

    double qMean = g.samples ? g.queueSum / g.samples : 0.0;
    double qVar = g.samples ? g.queueSum2 / g.samples - qMean * qMean : 0.0;
    std::printf("{\"simulator\": \"ns-3.44\", \"window_s\": %.9f, \"tx_bytes\": %llu, "
                "\"arrivals\": %llu, \"drops\": %llu, \"marks\": %llu, \"departures_sojourn\": "
                "%llu, \"sojourn_sum_s\": %.9f, \"queue_samples\": %llu, \"queue_mean_pkts\": "
                "%.6f, \"queue_std_pkts\": %.6f, \"access_drops\": %llu, \"events\": %llu, "
                "\"wall_s\": %.3f, \"utilisation\": %.6f, \"flows\": [",
                window,
                (unsigned long long)g.txBytes,
                (unsigned long long)(g.enqueued + g.droppedBeforeEnqueue),
                (unsigned long long)g.drops,
                (unsigned long long)g.marks,
                (unsigned long long)g.sojourns,
                g.sojournSum,
                (unsigned long long)g.samples,
                qMean,
                std::sqrt(std::max(qVar, 0.0)),
                (unsigned long long)g.accessDrops,
                (unsigned long long)Simulator::GetEventCount(),
                wall,
                window > 0 ? g.txBytes * 8.0 / (double(s.bottleneckBps) * window) : 0.0);
    for (uint32_t i = 0; i < n; i++)
    {
        const PerFlow& f = g.flows[i];
        std::printf("%s[%llu, %llu, %llu, %llu]",
                    i ? ", " : "",
                    (unsigned long long)(f.sink->GetTotalRx() - f.rxAtWarmup),
                    (unsigned long long)f.retransmits,
                    (unsigned long long)f.timeouts,
                    (unsigned long long)f.drops);
    }
    std::printf("]}\n");
    if (g.trace)
    {
        std::fclose(g.trace);
    }
    Simulator::Destroy();
    return 0;
}
