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
        return new BindingRoute(str(), actorRoute(), new Binding(u64(), u64()), sessionRef(), u64());
    }

    private Optional<UnavailableReason> reason() {
        int code = u8();
        return code == 0 ? Optional.empty() : Optional.of(UnavailableReason.of(code));
    }

    Completion completion() {
        long correlation = u64();
        long operationId = u64();
        ObjectKind kind = ObjectKind.of(u8());
        String id = str();
        Outcome outcome = switch (u8()) {
            case 1 -> new Outcome.Reply(bytes());
            case 2 -> new Outcome.Error(str(), reason(), Integer.toUnsignedLong(u32()), str());
            case 3 -> new Outcome.Timeout();
            case 4 -> new Outcome.Cancelled();
            case 5 -> new Outcome.Shutdown();
            default -> throw broken("outcome");
        };
        Optional<SpotExecution> origin = opt(() -> new SpotExecution(str(), u64()));
        return new Completion(correlation, operationId, kind, id, outcome, origin, bool());
    }

    Deliver deliver() {
        Optional<Operation> op = opt(this::operation);
        return new Deliver(op.orElseThrow(() -> broken("delivery")), u64());
    }

    SessionDeliver sessionDeliver() {
        long operationId = u64();
        SessionRef session = opt(this::sessionRef).orElseThrow(() -> broken("session"));
        return new SessionDeliver(operationId, session, str(), u64(), str(), bytes());
    }

    Inbound inbound() {
        return switch (u8()) {
            case 1 -> deliver();
            case 2 -> new Relay(opt(this::outbound).orElseThrow(() -> broken("relay")),
                    opt(() -> new Notice(outbound(), new NoticeToken(bytes()))));
            case 3 -> new Reject(opt(this::outbound).orElseThrow(() -> broken("reject")));
            case 4 -> new Ended(u64(), ObjectKind.of(u8()), str(), str(), reason());
            case 5 -> new Completed(completion());
            case 6 -> new Late(u64());
            case 7 -> new RouteRefreshed(bool());
            case 8 -> new Dropped(str(), str());
            case 9 -> new Send(list(this::outbound));
            case 10 -> sessionDeliver();
            case 11 -> sessionEvent();
            case 12 -> PeerRefused.INSTANCE;
            case 13 -> new ForeignSender(u64(), optLong());
            case 14 -> Held.INSTANCE;
            case 15 -> relocation();
            case 16 -> new OwnershipLost(ObjectKind.of(u8()), str(), LostReason.named(str()));
            default -> throw broken("decision");
        };
    }

    private Inbound sessionEvent() {
        int event = u8();
        Optional<SessionRef> session = opt(this::sessionRef);
        String actor = str();
        Optional<BindingRoute> route = opt(this::bindingRoute);
        String bindRefusal = str();
        byte[] payload = bytes();
        long operationId = u64();
        String relayRefusal = str();
        long relocation = u64();
        boolean sealed = bool();
        String detail = str();
        if (event == 6) {
            return new Ignored(detail);
        }
        SessionRef s = session.orElseThrow(() -> broken("session event"));
        return switch (event) {
            case 1 -> new Bound(s, actor, route.orElseThrow(() -> broken("binding route")));
            case 2 -> new BindRefused(s, actor, bindRefusal);
            case 3 -> new Pushed(s, actor, payload);
            case 4 -> new RelayRefused(operationId, s, actor, relayRefusal);
            case 5 -> new Sealed(s, actor, relocation, sealed);
            case 7 -> new SessionClosed(s);
            default -> throw broken("session event");
        };
    }

    private Relocation relocation() {
        int event = u8();
        RelocationIdentity id = new RelocationIdentity(u64(), ObjectKind.of(u8()), str(), u64());
        Optional<NodeRef> peer = opt(this::nodeRef);
        long rid = peer.map(NodeRef::rid).orElse(0L);
        long generation = peer.map(NodeRef::generation).orElse(0L);
        String reason = str();
        String refusal = str();
        long relayed = u64();
        byte[] state = bytes();
        RelocationEvent e = switch (event) {
            case 1 -> new RelocationEvent.Restore(id, rid, generation, state);
            case 2 -> new RelocationEvent.Cutover(id, relayed);
            case 3 -> new RelocationEvent.Committed(id, rid, generation);
            case 4 -> new RelocationEvent.HandedOff(id, rid, generation);
            case 5 -> new RelocationEvent.Aborted(id, reason);
            case 6 -> new RelocationEvent.Failed(id, reason);
            case 7 -> new RelocationEvent.CommitRetry(id);
            case 9 -> new RelocationEvent.Aborting(id, reason);
            case 8 -> new RelocationEvent.Ignored(id, refusal);
            case 10 -> new RelocationEvent.CommitDue(id);
            default -> throw broken("relocation event");
        };
        List<Deliver> deliver = list(this::deliver);
        List<SessionDeliver> session = list(this::sessionDeliver);
        List<Outbound> send = list(this::outbound);
        return new Relocation(e, deliver, send, session);
    }

    RelocationStarted relocationStarted() {
        RelocationIdentity id = new RelocationIdentity(u64(), ObjectKind.of(u8()), str(), u64());
        return new RelocationStarted(id, list(this::outbound));
    }

    Registration registration() {
        return new Registration(sessionRef(), new Binding(u64(), u64()));
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
