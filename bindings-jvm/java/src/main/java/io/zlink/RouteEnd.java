package io.zlink;

/** One end of a Message Follow route: a node and the fence of its tenure. */
public record RouteEnd(NodeRef node, RouteFence fence) {}
