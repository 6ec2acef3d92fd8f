package io.zlink;

/** The Actor pushed {@code payload} to the Session. */
public record Pushed(SessionRef session, String actor, byte[] payload) implements Inbound {
    @Override
    public boolean equals(Object o) {
        return o instanceof Pushed x && session.equals(x.session) && actor.equals(x.actor)
                && Bytes.same(payload, x.payload);
    }

    @Override
    public int hashCode() {
        return session.hashCode() * 31 + Bytes.hash(payload);
    }

    @Override
    public String toString() {
        return "Pushed[session=" + session + ", actor=" + actor + ", payload=" + Bytes.describe(payload) + "]";
    }
}
