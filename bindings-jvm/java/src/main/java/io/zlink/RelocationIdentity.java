package io.zlink;

/** Which relocation: its id, the object it moves and that object's incarnation. */
public record RelocationIdentity(long relocation, ObjectKind kind, String id, long objectGeneration) {}
