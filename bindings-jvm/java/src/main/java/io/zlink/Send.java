package io.zlink;

import java.util.List;

/** Carry these frames (session protocol answers, notifications). */
public record Send(List<Outbound> outbounds) implements Inbound {}
