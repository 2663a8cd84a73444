// aqmlab's benchmark dumbbell in ns-3 (3.44), for bench/vs_ns3.sh: the same scenario as
// bench/scenarios/dumbbell_155mbps_*flows.toml so that CPU times can be set side by side.
//
//   src i --access i--> R1 ==bottleneck==> R2 --sink i--> dst i      (and the same links back)
//
// - N bulk TCP flows (BulkSendApplication -> PacketSink), flow i starting uniformly in [0, 1 s).
// - Access links: --accessBw, one-way delay of flow i spread linearly over
//   [--minAccessDelay, --maxAccessDelay]; a 1000-packet DropTail device queue (aqmlab's default
//   access buffer). Sink links 1 Gbps / 0 ms with a 10 000-packet device queue.
// - Bottleneck: --bottleneckBw / --bottleneckDelay, a queue disc of --queueLimitPackets over a
//   1-packet device queue (ns-3's way of putting an AQM/FIFO in front of a NetDevice); the reverse
//   direction is uncongested (10 000 packets). --queueDisc=Fifo (FifoQueueDisc, default) or
//   Step: DCTCP's step marking as ns-3's DCTCP examples build it, a RedQueueDisc that marks every
//   ECN-capable arrival when the instantaneous queue is at least --stepK + 1 packets (MinTh = K,
//   MaxTh = K + 1, QW = 1, LInterm = 1, Gentle off, UseEcn, UseHardDrop off). aqmlab's
//   `red` with min_th = K, max_th = K + 1, w_q = 1, max_p = 1, gentle = false, hard_drop = false,
//   ecn = true is the same queue decision by decision (RED is checked bit for bit against
//   ns-3's RedQueueDisc in crates/aqmlab-core/tests/red_vectors.rs).
// - CUBIC: --hystart=0 switches ns-3's HyStart off (aqmlab's CUBIC has none; ns-3's default is
//   on). DCTCP (and --ecn=1 with the other TCPs) turns ECN on in TCP and in the queue disc.
// - TCP: --tcp=NewReno (default), LinuxReno, Cubic or Dctcp (ns-3's TcpNewReno, TcpLinuxReno,
//   TcpCubic, TcpDctcp) with classic fast recovery (not ns-3's default PRR), SACK on or off
//   (--sack), no timestamps, an ACK per segment, initial window --initialCwnd segments,
//   minimum RTO --minRto, clock granularity 10 ms, send/receive buffers large enough that the
//   congestion window alone limits a flow (aqmlab's default: no receiver window). Segments of
//   --segmentSize bytes: 958 + 20 (TCP) + 20 (IPv4) + 2 (PPP) = 1000 bytes on the wire, as aqmlab's
//   mss = 1000.
// - Static routing: each router has its connected /30s and one aggregate route across the
//   bottleneck; hosts use a default route.
//
// Prints one JSON line. Whole run: bottleneck packets sent, events executed, wall seconds.
// Over [--warmup, --duration] (as aqmlab's summary): utilisation of the bottleneck (bytes on the
// wire), loss_rate = qdisc drops / qdisc arrivals, ECN marks, per-flow goodput (bytes the sinks
// received, Mb/s) and Jain's index of it, the qdisc's queue length sampled every 20 ms (mean,
// std, packets) and the mean sojourn time of packets leaving the qdisc (ms).
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

struct Counters
{
    uint64_t txPackets = 0;     // bottleneck packets sent (whole run)
    uint64_t txBytesWindow = 0; // bottleneck bytes sent after the warm-up
    uint64_t drops = 0;         // qdisc drops after the warm-up
    uint64_t marks = 0;         // qdisc ECN marks after the warm-up
    uint64_t arrivals = 0;      // qdisc arrivals (enqueue attempts) after the warm-up
    uint64_t sojourns = 0;      // packets leaving the qdisc after the warm-up ...
    double sojournSum = 0;      // ... and their summed sojourn, seconds
    uint64_t queueSamples = 0;
    double queueSum = 0;
    double queueSum2 = 0;
    Time warmup;
    Time stop;
    Ptr<QueueDisc> qdisc;
    std::vector<Ptr<PacketSink>> sinks;
    std::vector<uint64_t> rxAtWarmup;
};

Counters g;

bool
Measuring()
{
    return Simulator::Now() >= g.warmup;
}

void
OnBottleneckTx(Ptr<const Packet> p)
{
    g.txPackets++;
    if (Measuring())
    {
        g.txBytesWindow += p->GetSize();
    }
}

void
OnQdiscEnqueue(Ptr<const QueueDiscItem>)
{
    g.arrivals += Measuring();
}

void
OnQdiscDrop(Ptr<const QueueDiscItem>)
{
    // A drop before enqueue never reached "Enqueue": count it as an arrival too.
    if (Measuring())
    {
        g.drops++;
        g.arrivals++;
    }
}

void
OnQdiscMark(Ptr<const QueueDiscItem>, const char*)
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

// The qdisc's backlog every 20 ms from the warm-up on (aqmlab's default sample interval).
void
SampleQueue()
{
    double q = g.qdisc->GetNPackets();
    g.queueSamples++;
    g.queueSum += q;
    g.queueSum2 += q * q;
    if (Simulator::Now() + MilliSeconds(20) < g.stop)
    {
        Simulator::Schedule(MilliSeconds(20), &SampleQueue);
    }
}

void
SnapshotAtWarmup()
{
    for (size_t i = 0; i < g.sinks.size(); i++)
    {
        g.rxAtWarmup[i] = g.sinks[i]->GetTotalRx();
    }
    SampleQueue();
}

// Address of interface `i` of a point-to-point /30 numbered from `base`, link `k`.
Ipv4InterfaceContainer
Number(NetDeviceContainer devs, uint32_t net, uint32_t k)
{
    Ipv4AddressHelper a;
    uint32_t base = net + (k << 2);
    a.SetBase(Ipv4Address(base), Ipv4Mask("255.255.255.252"));
    return a.Assign(devs);
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t flows = 100;
    std::string bottleneckBw = "155Mbps";
    Time bottleneckDelay = MilliSeconds(30);
    std::string accessBw = "10Mbps";
    Time minAccessDelay = MilliSeconds(1);
    Time maxAccessDelay = MilliSeconds(200);
    uint32_t queueLimitPackets = 600;
    double duration = 60;
    double warmup = 10;
    bool sack = false;
    uint32_t segmentSize = 958;
    Time minRto = MilliSeconds(200);
    uint32_t initialCwnd = 2;
    uint32_t seed = 1;
    std::string tcp = "NewReno";
    std::string queueDisc = "Fifo";
    uint32_t stepK = 20;
    bool ecn = false;
    bool hystart = true;

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of TCP flows", flows);
    cmd.AddValue("bottleneckBw", "bottleneck rate", bottleneckBw);
    cmd.AddValue("bottleneckDelay", "bottleneck one-way delay", bottleneckDelay);
    cmd.AddValue("accessBw", "access link rate", accessBw);
    cmd.AddValue("minAccessDelay", "access delay of the first flow", minAccessDelay);
    cmd.AddValue("maxAccessDelay", "access delay of the last flow", maxAccessDelay);
    cmd.AddValue("queueLimitPackets", "bottleneck queue disc size, packets", queueLimitPackets);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("warmup", "seconds before measuring", warmup);
    cmd.AddValue("sack", "SACK senders and receivers", sack);
    cmd.AddValue("segmentSize", "TCP payload bytes per segment", segmentSize);
    cmd.AddValue("minRto", "minimum retransmission timeout", minRto);
    cmd.AddValue("initialCwnd", "initial window, segments", initialCwnd);
    cmd.AddValue("seed", "run number of the random streams", seed);
    cmd.AddValue("tcp", "congestion control: NewReno, LinuxReno, Cubic or Dctcp", tcp);
    cmd.AddValue("queueDisc", "bottleneck queue disc: Fifo or Step (RED as a step marker)", queueDisc);
    cmd.AddValue("stepK", "Step: mark when the queue holds more than K packets", stepK);
    cmd.AddValue("ecn", "ECN in TCP and the queue disc (always on with Dctcp)", ecn);
    cmd.AddValue("hystart", "TcpCubic's HyStart (ns-3's default: on)", hystart);
    cmd.Parse(argc, argv);
    g.warmup = Seconds(warmup);
    g.stop = Seconds(duration);
    RngSeedManager::SetRun(seed);

    TypeId cc;
    if (tcp == "NewReno")
    {
        cc = TcpNewReno::GetTypeId();
    }
    else if (tcp == "LinuxReno")
    {
        cc = TcpLinuxReno::GetTypeId();
    }
    else if (tcp == "Cubic")
    {
        cc = TcpCubic::GetTypeId();
    }
    else if (tcp == "Dctcp")
    {
        cc = TcpDctcp::GetTypeId();
        ecn = true;
    }
    else
    {
        NS_ABORT_MSG("--tcp: '" << tcp << "' (NewReno, LinuxReno, Cubic or Dctcp)");
    }
    NS_ABORT_MSG_UNLESS(queueDisc == "Fifo" || queueDisc == "Step",
                        "--queueDisc: '" << queueDisc << "' (Fifo or Step)");
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(cc));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(hystart));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue(ecn ? "On" : "Off"));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(minRto));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(10)));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segmentSize));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initialCwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 24));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 24));

    NodeContainer routers(2);
    NodeContainer src(flows);
    NodeContainer dst(flows);
    InternetStackHelper stack;
    stack.Install(routers);
    stack.Install(src);
    stack.Install(dst);

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessBw));
    access.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1000p"));
    PointToPointHelper sink;
    sink.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
    sink.SetChannelAttribute("Delay", TimeValue(Seconds(0)));
    sink.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("10000p"));
    PointToPointHelper core;
    core.SetDeviceAttribute("DataRate", StringValue(bottleneckBw));
    core.SetChannelAttribute("Delay", TimeValue(bottleneckDelay));
    core.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));

    const uint32_t srcNet = Ipv4Address("10.1.0.0").Get();
    const uint32_t dstNet = Ipv4Address("10.2.0.0").Get();
    TrafficControlHelper none;
    std::vector<Ipv4Address> dstAddr(flows);
    for (uint32_t i = 0; i < flows; i++)
    {
        Time d = flows > 1 ? minAccessDelay + (maxAccessDelay - minAccessDelay) * i / (flows - 1)
                           : minAccessDelay;
        access.SetChannelAttribute("Delay", TimeValue(d));
        NetDeviceContainer a = access.Install(src.Get(i), routers.Get(0));
        NetDeviceContainer s = sink.Install(routers.Get(1), dst.Get(i));
        Number(a, srcNet, i);
        dstAddr[i] = Number(s, dstNet, i).GetAddress(1);
        // Plain device queues everywhere but the bottleneck (ns-3 installs pfifo_fast otherwise).
        none.Uninstall(a);
        none.Uninstall(s);
    }
    NetDeviceContainer b = core.Install(routers.Get(0), routers.Get(1));
    Ipv4InterfaceContainer bi = Number(b, Ipv4Address("10.0.0.0").Get(), 0);
    none.Uninstall(b);
    TrafficControlHelper tch;
    std::string limit = std::to_string(queueLimitPackets) + "p";
    if (queueDisc == "Fifo")
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue(limit));
    }
    else
    {
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", StringValue(limit),
                             "MeanPktSize", UintegerValue(segmentSize + 42),
                             "MinTh", DoubleValue(stepK),
                             "MaxTh", DoubleValue(stepK + 1),
                             "QW", DoubleValue(1.0),
                             "LInterm", DoubleValue(1.0),
                             "Gentle", BooleanValue(false),
                             "UseEcn", BooleanValue(true),
                             "UseHardDrop", BooleanValue(false));
    }
    g.qdisc = tch.Install(b.Get(0)).Get(0);
    g.qdisc->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnQdiscEnqueue));
    g.qdisc->TraceConnectWithoutContext("Drop", MakeCallback(&OnQdiscDrop));
    g.qdisc->TraceConnectWithoutContext("Mark", MakeCallback(&OnQdiscMark));
    g.qdisc->TraceConnectWithoutContext("SojournTime", MakeCallback(&OnSojourn));
    b.Get(0)->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&OnBottleneckTx));
    // The reverse bottleneck: uncongested, as aqmlab's.
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
    for (uint32_t i = 0; i < flows; i++)
    {
        routing.GetStaticRouting(src.Get(i)->GetObject<Ipv4>())
            ->SetDefaultRoute(Ipv4Address(srcNet + (i << 2) + 2), 1);
        routing.GetStaticRouting(dst.Get(i)->GetObject<Ipv4>())
            ->SetDefaultRoute(Ipv4Address(dstNet + (i << 2) + 1), 1);
    }

    const uint16_t port = 5000;
    Ptr<UniformRandomVariable> start = CreateObject<UniformRandomVariable>();
    g.rxAtWarmup.assign(flows, 0);
    for (uint32_t i = 0; i < flows; i++)
    {
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(dstAddr[i], port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(segmentSize * 64));
        ApplicationContainer app = bulk.Install(src.Get(i));
        app.Start(Seconds(start->GetValue(0, 1)));
        PacketSinkHelper ps("ns3::TcpSocketFactory",
                            InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = ps.Install(dst.Get(i));
        sinkApp.Start(Seconds(0));
        g.sinks.push_back(DynamicCast<PacketSink>(sinkApp.Get(0)));
    }
    Simulator::Schedule(g.warmup, &SnapshotAtWarmup);

    auto t0 = std::chrono::steady_clock::now();
    Simulator::Stop(g.stop);
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    uint64_t events = Simulator::GetEventCount();

    double rate = DataRate(bottleneckBw).GetBitRate();
    double window = duration - warmup;
    double utilisation = window > 0 ? g.txBytesWindow * 8.0 / (rate * window) : 0.0;
    std::string goodput;
    double sum = 0;
    double sum2 = 0;
    for (uint32_t i = 0; i < flows; i++)
    {
        double mbps = (g.sinks[i]->GetTotalRx() - g.rxAtWarmup[i]) * 8.0 / window / 1e6;
        sum += mbps;
        sum2 += mbps * mbps;
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s%.6f", i ? ", " : "", mbps);
        goodput += buf;
    }
    Simulator::Destroy();
    double jain = sum2 > 0 ? sum * sum / (flows * sum2) : 0.0;
    double qMean = g.queueSamples ? g.queueSum / g.queueSamples : 0.0;
    double qVar = g.queueSamples ? g.queueSum2 / g.queueSamples - qMean * qMean : 0.0;
    std::printf("{\"simulator\": \"ns-3.44\", \"flows\": %u, \"tcp\": \"Tcp%s\", \"sack\": %s, "
                "\"ecn\": %s, \"hystart\": %s, \"queueDisc\": \"%s\", \"stepK\": %u, "
                "\"bottleneckBw\": \"%s\", \"queueLimitPackets\": %u, \"duration_s\": %g, "
                "\"warmup_s\": %g, \"seed\": %u, \"bottleneck_packets\": %llu, "
                "\"qdisc_arrivals\": %llu, \"drops\": %llu, \"loss_rate\": %.6f, "
                "\"ecn_marks\": %llu, \"utilisation\": %.6f, \"utilization\": %.6f, "
                "\"jain_index\": %.6f, \"goodput_mbps\": [%s], \"queue_mean_pkts\": %.4f, "
                "\"queue_std_pkts\": %.4f, \"mean_queue_delay_ms\": %.4f, \"events\": %llu, "
                "\"wall_s\": %.3f}\n",
                flows,
                tcp.c_str(),
                sack ? "true" : "false",
                ecn ? "true" : "false",
                hystart ? "true" : "false",
                queueDisc.c_str(),
                stepK,
                bottleneckBw.c_str(),
                queueLimitPackets,
                duration,
                warmup,
                seed,
                (unsigned long long)g.txPackets,
                (unsigned long long)g.arrivals,
                (unsigned long long)g.drops,
                g.arrivals ? double(g.drops) / double(g.arrivals) : 0.0,
                (unsigned long long)g.marks,
                utilisation,
                utilisation,
                jain,
                goodput.c_str(),
                qMean,
                std::sqrt(std::max(qVar, 0.0)),
                g.sojourns ? g.sojournSum / g.sojourns * 1e3 : 0.0,
                (unsigned long long)events,
                wall);
    return 0;
}
