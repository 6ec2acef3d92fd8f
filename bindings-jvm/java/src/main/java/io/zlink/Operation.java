package io.zlink;

import java.util.Arrays;
import java.util.OptionalLong;

/**
 * A Message or Request as it arrived: identity, target, payload, origin, the fence of the route
 * it took and, for a request, the correlation of its reply route. Give it back to {@link
 * ZlinkRuntime#reply} or save it for a relocation. It carries its own frame, so it can be given
 * back after any time, to the runtime that delivered it.
 */
public final class Operation {
    private final long operationId;
    private final ObjectKind kind;
    private final String id;
    private final byte[] payload;
    private final NodeRef origin;
    private final RouteFence fence;
    private final int hopCount;
    private final long objectGeneration;
    private final OptionalLong correlation;
    final byte[] frame;

    Operation(long operationId, ObjectKind kind, String id, byte[] payload, NodeRef origin,
            RouteFence fence, int hopCount, long objectGeneration, OptionalLong correlation,
            byte[] frame) {
        this.operationId = operationId;
        this.kind = kind;
        this.id = id;
        this.payload = payload;
        this.origin = origin;
        this.fence = fence;
        this.hopCount = hopCount;
        this.objectGeneration = objectGeneration;
        this.correlation = correlation;
        this.frame = frame;
    }

    /** The operation's identity, unchanged across relays. */
    public long operationId() { return operationId; }

    /** The target's kind. */
    public ObjectKind kind() { return kind; }

    /** The target's global ID. */
    public String id() { return id; }

    /** The application bytes (a copy). */
    public byte[] payload() { return payload.clone(); }

    /** The runtime that started it. */
    public NodeRef origin() { return origin; }

    /** The fence of the route this hop used. */
    public RouteFence fence() { return fence; }

    /** Message Follow hops taken so far. */
    public int hopCount() { return hopCount; }

    /** The ObjectGeneration it was started for. */
    public long objectGeneration() { return objectGeneration; }

    /** Whether it is a request (it has a reply route). */
    public boolean isRequest() { return correlation.isPresent(); }

    /** A request's correlation. */
    public OptionalLong correlation() { return correlation; }

    @Override
    public boolean equals(Object o) {
        return o instanceof Operation x && Arrays.equals(frame, x.frame);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(frame);
    }

    @Override
    public String toString() {
        return "Operation[operationId=" + operationId + ", kind=" + kind + ", id=" + id
                + ", payload=" + Bytes.describe(payload) + ", request=" + isRequest() + "]";
    }
}
