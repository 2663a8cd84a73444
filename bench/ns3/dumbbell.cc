// aqmlab's benchmark dumbbell in ns-3 (3.44), for bench/vs_ns3.sh: the same scenario as
// bench/scenarios/dumbbell_155mbps_*flows.toml so that CPU times can be set side by side.
//
//   src i --access i--> R1 ==bottleneck==> R2 --sink i--> dst i      (and the same links back)
//
// - N bulk TCP flows (BulkSendApplication -> PacketSink), flow i starting uniformly in [0, 1 s).
// - Access links: --accessBw, one-way delay of flow i spread linearly over
//   [--minAccessDelay, --maxAccessDelay]; a 1000-packet DropTail device queue (aqmlab's default
//   access buffer). Sink links 1 Gbps / 0 ms with a 10 000-packet device queue.
// - Bottleneck: --bottleneckBw / --bottleneckDelay, a FifoQueueDisc of --queueLimitPackets over a
//   1-packet device queue (ns-3's way of putting an AQM/FIFO in front of a NetDevice); the reverse
//   direction is uncongested (10 000 packets).
// - TCP: NewReno congestion avoidance with classic fast recovery (not ns-3's default PRR), SACK
//   on or off (--sack), no timestamps, an ACK per segment, initial window --initialCwnd segments,
//   minimum RTO --minRto, clock granularity 10 ms, send/receive buffers large enough that the
//   congestion window alone limits a flow (aqmlab's default: no receiver window). Segments of
//   --segmentSize bytes: 958 + 20 (TCP) + 20 (IPv4) + 2 (PPP) = 1000 bytes on the wire, as aqmlab's
//   mss = 1000.
// - Static routing: each router has its connected /30s and one aggregate route across the
//   bottleneck; hosts use a default route.
//
// Prints one JSON line: bottleneck packets and bytes sent, drops, utilisation over
// [--warmup, --duration], events executed, wall seconds.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

struct Counters
{
    uint64_t txPackets = 0; // bottleneck packets sent (whole run)
    uint64_t txBytesWindow = 0; // bottleneck bytes sent after the warm-up
    uint64_t drops = 0;
    Time warmup;
};

Counters g;

void
OnBottleneckTx(Ptr<const Packet> p)
{
    g.txPackets++;
    if (Simulator::Now() >= g.warmup)
    {
        g.txBytesWindow += p->GetSize();
    }
}

void
OnQdiscDrop(Ptr<const QueueDiscItem>)
{
    g.drops++;
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

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of TCP flows", flows);
    cmd.AddValue("bottleneckBw", "bottleneck rate", bottleneckBw);
    cmd.AddValue("bottleneckDelay", "bottleneck one-way delay", bottleneckDelay);
    cmd.AddValue("accessBw", "access link rate", accessBw);
    cmd.AddValue("minAccessDelay", "access delay of the first flow", minAccessDelay);
    cmd.AddValue("maxAccessDelay", "access delay of the last flow", maxAccessDelay);
    cmd.AddValue("queueLimitPackets", "bottleneck FIFO size, packets", queueLimitPackets);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("warmup", "seconds before measuring utilisation", warmup);
    cmd.AddValue("sack", "SACK senders and receivers", sack);
    cmd.AddValue("segmentSize", "TCP payload bytes per segment", segmentSize);
    cmd.AddValue("minRto", "minimum retransmission timeout", minRto);
    cmd.AddValue("initialCwnd", "initial window, segments", initialCwnd);
    cmd.AddValue("seed", "run number of the random streams", seed);
    cmd.Parse(argc, argv);
    g.warmup = Seconds(warmup);
    RngSeedManager::SetRun(seed);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
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
    TrafficControlHelper fifo;
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc",
                          "MaxSize",
                          StringValue(std::to_string(queueLimitPackets) + "p"));
    Ptr<QueueDisc> q = fifo.Install(b.Get(0)).Get(0);
    q->TraceConnectWithoutContext("Drop", MakeCallback(&OnQdiscDrop));
    b.Get(0)->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&OnBottleneckTx));
    // The reverse bottleneck: uncongested, as aqmlab's.
    DynamicCast<PointToPointNetDevice>(b.Get(1))->GetQueue()->SetMaxSize(
        QueueSize("10000p"));

    Ipv4StaticRoutingHelper routing;
    Ipv4Mask slash16("255.255.0.0");
    routing.GetStaticRouting(routers.Get(0)->GetObject<Ipv4>())
        ->AddNetworkRouteTo(Ipv4Address(dstNet), slash16, bi.GetAddress(1), 
                            routers.Get(0)->GetObject<Ipv4>()->GetInterfaceForDevice(b.Get(0)));
    routing.GetStaticRouting(routers.Get(1)->GetObject<Ipv4>())
        ->AddNetworkRouteTo(Ipv4Address(srcNet), slash16, bi.GetAddress(0),
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
    for (uint32_t i = 0; i < flows; i++)
    {
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(dstAddr[i], port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(segmentSize * 64));
        ApplicationContainer app = bulk.Install(src.Get(i));
        app.Start(Seconds(start->GetValue(0, 1)));
        PacketSinkHelper ps("ns3::TcpSocketFactory",
                            InetSocketAddress(Ipv4Address::GetAny(), port));
        ps.Install(dst.Get(i)).Start(Seconds(0));
    }

    auto t0 = std::chrono::steady_clock::now();
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    uint64_t events = Simulator::GetEventCount();
    Simulator::Destroy();

    double rate = DataRate(bottleneckBw).GetBitRate();
    double window = duration - warmup;
    double utilisation = window > 0 ? g.txBytesWindow * 8.0 / (rate * window) : 0.0;
    std::printf("{\"flows\": %u, \"sack\": %s, \"bottleneck_packets\": %llu, \"drops\": %llu, "
                "\"loss_rate\": %.6f, \"utilisation\": %.6f, \"events\": %llu, \"wall_s\": %.3f}\n",
                flows,
                sack ? "true" : "false",
                (unsigned long long)g.txPackets,
                (unsigned long long)g.drops,
                g.txPackets + g.drops ? double(g.drops) / double(g.txPackets + g.drops) : 0.0,
                utilisation,
                (unsigned long long)events,
                wall);
    return 0;
}
