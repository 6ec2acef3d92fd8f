package io.zlink;

/** What every zlink exception says besides its message: the cause's stable name. */
public interface ZlinkError {
    /**
     * The precise cause: the same name in every language (e.g. {@code EmptyObjectId}, {@code
     * CacheOutlivesFollow}, {@code NotOwned}, {@code Closed}).
     */
    String kind();
}
