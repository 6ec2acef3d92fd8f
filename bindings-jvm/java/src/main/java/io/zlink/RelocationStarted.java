package io.zlink;

import java.util.List;

/**
 * A relocation begun on the source: carry every frame of {@code send} (the Restore to the target
 * first, then command 42 to every bound Session's owner).
 */
public record RelocationStarted(RelocationIdentity identity, List<Outbound> send) {}
