package io.zlink;

import java.util.concurrent.CompletableFuture;

/**
 * The JNI entry points (bindings-jvm/src/natives.rs), in the order of docs/runtime.md. Kinds
 * are codes, IDs UTF-8 bytes, durations milliseconds, -1 or null "not given"; results are
 * primitives or bytes for {@link Decoder}. Package-private: {@link ZlinkRuntime} and friends are
 * the API.
 */
final class Native {
    static {
        NativeLoader.load();
    }

    private Native() {}

    static native long[] configDefault();

    static native long[] configCheck(long[] values);

    static native String configFields();

    static native long clockNew(boolean manual);

    static native void clockAdvance(long clock, long ms);

    static native long clockNow(long clock);

    static native void clockFree(long clock);

    static native long storeMemory(long clock, long retentionMs);

    static native long storeRedis(String url, String prefix, long connectMs, long responseMs,
            long epochMs, long retentionMs, int threadConnections, int writeAcksMode,
            int writeAcksReplicas, long writeAckTimeoutMs);

    static native void storeFree(long store);

    static native long runtimeNew(String mesh, long rid, long generation, long lease, long[] config,
            long store, long clock, int workers);

    static native void runtimeMayClose(long rt);

    static native void runtimeFree(long rt);

    static native byte[] identity(long rt);

    static native long[] config(long rt);

    static native void updateConfig(long rt, long[] values);

    static native byte[] resolve(long rt, int kind, byte[] id);

    static native byte[] resolveMany(long rt, int kind, byte[] ids, long[] ends);

    static native void resolveAsync(long rt, int kind, byte[] id, CompletableFuture<byte[]> future);

    static native byte[] lookupCached(long rt, int kind, byte[] id);

    static native void spawn(long rt, Runnable job);

    static native long keyNew(int kind, byte[] id);

    static native void keyFree(long key);

    /** 1 hit (the route's 7 numbers in {@code out}), 0 miss, -1 take the checked path. */
    static native int lookupKey(long rt, long key, long[] out);

    static native int lookupString(long rt, int kind, String id, long[] out);

    /** Per key: status then 7 numbers, 8 longs each, in {@code out}. */
    static native void lookupKeys(long rt, long[] keys, int n, long[] out);

    static native byte[] send(long rt, int kind, byte[] id, byte[] payload, boolean instanceIntent,
            long deadlineMs);

    static native byte[] request(long rt, int kind, byte[] id, byte[] payload, boolean instanceIntent,
            long deadlineMs, long timeoutMs, byte[] origin, long originGeneration);

    static native byte[] onFrame(long rt, long from, byte[] frame);

    static native byte[] reply(long rt, byte[] operation, byte[] payload, int errorKind, int code,
            String message);

    static native void noticeSettled(long rt, byte[] token, boolean sent);

    static native byte[] cancel(long rt, long correlation);

    static native byte[] shutdownRequests(long rt);

    static native long pendingRequests(long rt);

    static native long now(long rt);

    static native long nextDeadline(long rt);

    static native byte[] onTimeout(long rt, long nowNs);

    static native byte[] write(long rt, int op, int kind, byte[] id);

    static native void completeRelease(long rt, int kind, byte[] id);

    static native byte[] owned(long rt, int kind, byte[] id);

    static native long ownedCount(long rt);

    static native byte[] ownerRouteEnd(long rt, int kind, byte[] id);

    static native byte[] beginRelocation(long rt, int kind, byte[] id, long targetRid,
            long targetGeneration, byte[][] saved, byte[] state);

    static native byte[] relocationRestored(long rt, int kind, byte[] id);

    static native byte[] abortRelocation(long rt, int kind, byte[] id);

    static native byte[] openSession(long rt, long session, long generation);

    static native byte[] bind(long rt, long session, byte[] actor, String mesh, long[] route);

    static native byte[] binding(long rt, long session, byte[] actor);

    static native byte[] sessionSend(long rt, long session, byte[] actor, byte[] payload);

    static native byte[] disconnectSession(long rt, long session, boolean physical);

    static native byte[] push(long rt, byte[] actor, String mesh, long ownerRid, long ownerGeneration,
            long session, long sessionGeneration, byte[] payload);

    static native byte[] boundSessions(long rt, byte[] actor);

    static native byte[] refreshSessionRoutes(long rt, byte[] actor);

    static native void forgetBindings(long rt, byte[] actor);

    static native byte[] publishDescriptor(long rt, String endpoint, String securityIdentity);

    static native void addManualPeer(long rt, String endpoint);

    static native byte[] connectManualPeers(long rt);

    static native byte[] ensureManualPeer(long rt, String endpoint);

    static native void peerOpened(long rt, String endpoint, long rid);

    static native byte[] peerClosed(long rt, String endpoint);

    static native byte[] peerIntent(long rt, String endpoint);

    static native String peerEndpoint(long rt, long rid);

    static native byte[] onPeerFrame(long rt, String endpoint, byte[] frame);

    static native long liveHandles();

    static native void logLevel(int level);

    static native byte[] logTake(long timeoutMs);

    static native byte[] wireDecode(byte[] data, long maxObjectIdBytes, long maxPayloadBytes, long maxStateBytes);

    static native long onOwnerLeaseInvalidated(long rt, long node, long lease);

    static native long onStoreRecovery(long rt);

    static native byte[] stats(long rt);
}
