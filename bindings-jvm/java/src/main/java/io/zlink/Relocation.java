package io.zlink;

import java.util.List;

/**
 * A relocation step: {@code event} says what happened; put every {@code deliver} on the object's
 * application queue in order (each answered with {@link ZlinkRuntime#reply} like any other), hand
 * every {@code session} relay to the Actor in order, and carry every frame of {@code send}.
 */
public record Relocation(RelocationEvent event, List<Deliver> deliver, List<Outbound> send,
        List<SessionDeliver> session) implements Inbound {}
