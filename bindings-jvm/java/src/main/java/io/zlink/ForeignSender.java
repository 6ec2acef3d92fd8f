package io.zlink;

import java.util.OptionalLong;

/**
 * A frame whose sender is not the node of the connection it came on: refused and counted.
 * {@code claimed}: the sender it names.
 */
public record ForeignSender(long connection, OptionalLong claimed) implements Inbound {}
