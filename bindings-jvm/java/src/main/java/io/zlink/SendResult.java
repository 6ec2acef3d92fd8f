package io.zlink;

/**
 * What became of a send or a request: {@link Submitted} (carry its outbound), {@link NotFound},
 * {@link ColdActivation}, {@link Unavailable} or {@link StoreFailure}.
 */
public sealed interface SendResult permits Submitted, NotFound, ColdActivation, Unavailable, StoreFailure {}
