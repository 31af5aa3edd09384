package io.duraflow.fs;

/** What {@link FileSystem#create} and {@link FileSystem#rename} do when the target already exists. */
public enum WriteMode {
    /**
     * Fail with {@link java.nio.file.FileAlreadyExistsException}. The check and the creation are
     * one step: of several creators of one name, also in different processes, exactly one succeeds.
     */
    EXCLUSIVE,
    /** Replace the existing file. */
    OVERWRITE
}
