package flip7.bot;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Channels to ARENA_ADDRESS: "unix:///path" / "unix:path" (a Unix domain socket) or
 * "host:port" (TCP; any gRPC target). One event loop thread serves every connection of the
 * process; {@link #close()} stops it so that the JVM can exit.
 *
 * <p>Unix sockets use Netty's epoll transport when its native library loads (Netty's own jars
 * from Maven Central carry it), else {@link UnixNioChannel} on the JDK's AF_UNIX support
 * (Debian's libnetty-java has no native library).
 */
final class Transport implements AutoCloseable {
    final String address;
    final String socketPath; // null for TCP
    final String kind; // for logs
    private final EventLoopGroup group;

    Transport(String address) {
        this.address = address;
        this.socketPath = unixPath(address);
        ThreadFactory threads = r -> {
            Thread t = new Thread(r, "arena-io");
            t.setDaemon(true);
            return t;
        };
        if (socketPath != null && Epoll.isAvailable()) {
            group = new EpollEventLoopGroup(1, threads);
            kind = "unix socket (netty epoll)";
        } else {
            group = new NioEventLoopGroup(1, threads);
            kind = socketPath != null ? "unix socket (JDK AF_UNIX)" : "tcp";
        }
    }

    /** The socket path of a "unix:" address, or null. */
    static String unixPath(String address) {
        if (address.startsWith("unix://")) return address.substring("unix://".length());
        if (address.startsWith("unix:")) return address.substring("unix:".length());
        return null;
    }

    ManagedChannel open() {
        NettyChannelBuilder b;
        if (socketPath == null) {
            b = NettyChannelBuilder.forTarget(address).channelType(NioSocketChannel.class);
        } else if (group instanceof EpollEventLoopGroup) {
            b = NettyChannelBuilder.forAddress(new DomainSocketAddress(socketPath))
                    .channelType(EpollDomainSocketChannel.class);
        } else {
            b = NettyChannelBuilder.forAddress(UnixDomainSocketAddress.of(socketPath))
                    .channelFactory(UnixNioChannel::new);
        }
        return b.eventLoopGroup(group)
                .usePlaintext()
                .directExecutor() // answers are computed on the I/O thread: microseconds each
                .maxInboundMessageSize(64 << 20)
                .build();
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 200, TimeUnit.MILLISECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
}
