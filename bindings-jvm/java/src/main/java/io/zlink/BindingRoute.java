package io.zlink;

/** One bound Actor as the Session owner stores it (the verified route). */
public record BindingRoute(String actor, ActorRoute route, Binding binding, SessionRef session,
        long admissionDeadlineMs) {}
