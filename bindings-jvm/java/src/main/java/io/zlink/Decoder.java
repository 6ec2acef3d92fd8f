package io.zlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * Reads the bytes the native side writes with {@code bridge::encode} (little-endian numbers;
 * text and bytes with a u32 length; a presence byte before an optional value; a u32 count before
 * a list; a closed set's value as its u8 code), one method per result, each reading the fields
 * in the order the Rust side writes them.
 */
final class Decoder {
    private final ByteBuffer in;

    Decoder(byte[] bytes) {
        this.in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    int u8() {
        return in.get() & 0xFF;
    }

    boolean bool() {
        return u8() != 0;
    }

    int u32() {
        return in.getInt();
    }

    long u64() {
        return in.getLong();
    }

    byte[] bytes() {
        byte[] b = new byte[u32()];
        in.get(b);
        return b;
    }

    String str() {
        int n = u32();
        String s = new String(in.array(), in.position(), n, StandardCharsets.UTF_8);
        in.position(in.position() + n);
        return s;
    }

    RouteFence fence() {
        return Surface.routeFence(this);
    }

    ReadyRoute readyRoute() {
        return Surface.readyRoute(this);
    }

    Resolution resolution() {
        return Surface.resolution(this);
    }

    OwnedObject owned() {
        return Surface.ownedObject(this);
    }

    NodeRef nodeRef() {
        return Surface.nodeRef(this);
    }

    RouteEnd routeEnd() {
        return Surface.routeEnd(this);
    }

    NodeIdentity identity() {
        return new NodeIdentity(str(), u64(), u64(), u64());
    }

    /** Counters keyed {@code group.name} ({@code name} at the top level), in the list's order. */
    Map<String, Long> stats() {
        int n = u32();
        Map<String, Long> out = new LinkedHashMap<>(n * 2);
        for (int i = 0; i < n; i++) {
            String group = str();
            String name = str();
            out.put(group.isEmpty() ? name : group + "." + name, u64());
        }
        return out;
    }

    <T> Optional<T> opt(Supplier<T> read) {
        return bool() ? Optional.of(read.get()) : Optional.empty();
    }

    OptionalLong optLong() {
        return bool() ? OptionalLong.of(u64()) : OptionalLong.empty();
    }

    <T> List<T> list(Supplier<T> read) {
        int n = u32();
        List<T> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(read.get());
        }
        return List.copyOf(out);
    }

    private static ZlinkException broken(String what) {
        return new ZlinkException("a result the library wrote is not readable: " + what, "Protocol", null);
    }

    Outbound outbound() {
        return Surface.outbound(this);
    }

    SendResult sent() {
        return Surface.sendResult(this);
    }

    SessionSendResult sessionSent() {
        return Surface.sessionSendResult(this);
    }

    Operation operation() {
        long operationId = u64();
        ObjectKind kind = ObjectKind.of(u8());
        String id = str();
        byte[] payload = bytes();
        NodeRef origin = nodeRef();
        RouteFence fence = fence();
        int hops = u8();
        long generation = u64();
        OptionalLong correlation = optLong();
        return new Operation(operationId, kind, id, payload, origin, fence, hops, generation,
                correlation, bytes());
    }

    SessionRef sessionRef() {
        return Surface.sessionRef(this);
    }

    ActorRoute actorRoute() {
        return Surface.actorRoute(this);
    }

    BindingRoute bindingRoute() {
        return Surface.bindingRoute(this);
    }

    NoticeToken noticeToken() {
        return new NoticeToken(bytes());
    }

    Inbound inbound() {
        return Surface.inbound(this);
    }

    RelocationStarted relocationStarted() {
        return new RelocationStarted(Surface.relocationIdentity(this), list(this::outbound));
    }

    Registration registration() {
        return new Registration(sessionRef(), Surface.binding(this));
    }

    PeerDescriptor peerDescriptor() {
        return new PeerDescriptor(str(), u64(), u64(), str());
    }

    PeerReplacement peerReplacement() {
        return new PeerReplacement(peerDescriptor());
    }

    PeerIntent peerIntent() {
        return new PeerIntent(str(), opt(this::peerDescriptor), str(), optLong(), opt(this::peerDescriptor));
    }

    List<Outbound> outbounds() {
        return list(this::outbound);
    }

    List<Inbound> inbounds() {
        return list(this::inbound);
    }

    /**
     * Reads one whole result with {@code read}: bytes left over mean the two sides disagree on
     * the encoding, which is reported, never read past silently.
     */
    static <T> T read(byte[] bytes, java.util.function.Function<Decoder, T> read) {
        Decoder d = new Decoder(bytes);
        T value = read.apply(d);
        if (d.in.hasRemaining()) {
            throw broken(d.in.remaining() + " bytes left over");
        }
        return value;
    }

    static Decoder of(byte[] bytes) {
        return new Decoder(bytes);
    }
}
