package io.zlink;

/**
 * A session relay admitted on this Actor owner: hand {@code payload} (or the disconnect {@code
 * relayKind} names: Message, PhysicalDisconnect, LogicalDisconnect) to the Actor, in {@code
 * sequence} order.
 */
public record SessionDeliver(long operationId, SessionRef session, String actor, long sequence,
        String relayKind, byte[] payload) implements Inbound {
    @Override
    public boolean equals(Object o) {
        return o instanceof SessionDeliver x && operationId == x.operationId && session.equals(x.session)
                && actor.equals(x.actor) && sequence == x.sequence && relayKind.equals(x.relayKind)
                && Bytes.same(payload, x.payload);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(operationId) * 31 + Bytes.hash(payload);
    }

    @Override
    public String toString() {
        return "SessionDeliver[operationId=" + operationId + ", session=" + session + ", actor=" + actor
                + ", sequence=" + sequence + ", relayKind=" + relayKind + ", payload="
                + Bytes.describe(payload) + "]";
    }
}
