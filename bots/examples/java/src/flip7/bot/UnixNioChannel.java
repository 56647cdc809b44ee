package flip7.bot;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.FileRegion;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.nio.AbstractNioByteChannel;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * A Netty NIO client channel over a JDK Unix domain socket ({@code SocketChannel.open(UNIX)},
 * Java 16+), for gRPC over {@code unix:} addresses without Netty's native epoll library.
 *
 * <p>Debian's libnetty-java ships the epoll transport's classes but not its JNI library
 * (libnetty_transport_native_epoll_x86_64.so), so {@code EpollDomainSocketChannel} cannot
 * load there; the JDK itself has spoken AF_UNIX since Java 16. This is Netty 4.1's
 * {@code NioSocketChannel} reduced to what a gRPC client needs: connect, read, write, close.
 */
final class UnixNioChannel extends AbstractNioByteChannel {
    private final ChannelConfig config = new Config(this);
    private volatile boolean inputShutdown;
    private volatile SocketAddress remote;

    UnixNioChannel() {
        super(null, open());
    }

    private static SocketChannel open() {
        try {
            return SocketChannel.open(StandardProtocolFamily.UNIX);
        } catch (IOException e) {
            throw new io.netty.channel.ChannelException("cannot open a Unix domain socket", e);
        }
    }

    @Override
    protected SocketChannel javaChannel() {
        return (SocketChannel) super.javaChannel();
    }

    @Override
    public ChannelConfig config() {
        return config;
    }

    @Override
    public boolean isActive() {
        SocketChannel ch = javaChannel();
        return ch.isOpen() && ch.isConnected();
    }

    @Override
    protected SocketAddress localAddress0() {
        try {
            return javaChannel().getLocalAddress();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return remote;
    }

    @Override
    protected void doBind(SocketAddress localAddress) throws Exception {
        javaChannel().bind(localAddress);
    }

    @Override
    protected boolean doConnect(SocketAddress remoteAddress, SocketAddress localAddress)
            throws Exception {
        if (localAddress != null) doBind(localAddress);
        boolean ok = false;
        try {
            boolean connected = javaChannel().connect(remoteAddress);
            if (!connected) selectionKey().interestOps(SelectionKey.OP_CONNECT);
            remote = remoteAddress;
            ok = true;
            return connected;
        } finally {
            if (!ok) doClose();
        }
    }

    @Override
    protected void doFinishConnect() throws Exception {
        if (!javaChannel().finishConnect()) throw new IOException("connect did not finish");
    }

    @Override
    protected void doDisconnect() throws Exception {
        doClose();
    }

    @Override
    protected void doClose() throws Exception {
        super.doClose();
        javaChannel().close();
    }

    @Override
    @SuppressWarnings("deprecation") // as in Netty's own NioSocketChannel
    protected int doReadBytes(ByteBuf buf) throws Exception {
        RecvByteBufAllocator.Handle handle = unsafe().recvBufAllocHandle();
        handle.attemptedBytesRead(buf.writableBytes());
        return buf.writeBytes(javaChannel(), handle.attemptedBytesRead());
    }

    @Override
    protected int doWriteBytes(ByteBuf buf) throws Exception {
        return buf.readBytes(javaChannel(), buf.readableBytes());
    }

    @Override
    protected long doWriteFileRegion(FileRegion region) throws Exception {
        return region.transferTo(javaChannel(), region.transferred());
    }

    @Override
    protected ChannelFuture shutdownInput() {
        try {
            javaChannel().shutdownInput();
            inputShutdown = true;
            return newSucceededFuture();
        } catch (IOException e) {
            return newFailedFuture(e);
        }
    }

    @Override
    protected boolean isInputShutdown0() {
        return inputShutdown;
    }

    /** The default config; TCP-only options that gRPC sets on every channel are accepted and
     * ignored instead of being logged as unknown. */
    private static final class Config extends DefaultChannelConfig {
        Config(UnixNioChannel ch) {
            super(ch);
        }

        @Override
        public <T> boolean setOption(ChannelOption<T> option, T value) {
            if (option == ChannelOption.SO_KEEPALIVE || option == ChannelOption.TCP_NODELAY) {
                return true;
            }
            return super.setOption(option, value);
        }
    }
}
