/**
 * The file-system interface of everything Duraflow keeps durably: the job graph and job result
 * stores, the job event logs, and (with streaming) checkpoints. Code that writes durable data
 * uses {@link io.duraflow.fs.FileSystem} and {@link io.duraflow.fs.FsPath}, never
 * {@code java.nio.file} directly, so that the same code runs on the local disk, on HDFS and on
 * object stores.
 *
 * <pre>
 *   "hdfs://nn:8020/ha" or "/data/ha"  --FsPath.parse-->  FsPath(scheme, authority, path)
 *                                                            |
 *                                         FileSystems.get(path): by scheme
 *                                            file  -> LocalFileSystem.INSTANCE
 *                                            other -> a FileSystemFactory on the class path
 *                                                     (none yet: a one-line error)
 * </pre>
 *
 * <h2>What the interface promises</h2>
 * <ul>
 *   <li><b>Exclusive create</b> ({@link io.duraflow.fs.WriteMode#EXCLUSIVE}): of concurrent
 *       creators of one name, also in different processes, exactly one wins; the others get
 *       {@link java.nio.file.FileAlreadyExistsException}, which means nothing else. This is the
 *       only coordination between processes the stores rely on.</li>
 *   <li><b>Sync</b> ({@link io.duraflow.fs.FsOutputStream#sync()}): after it returns, the bytes
 *       written and the file's name survive a machine crash (fsync / HDFS hsync). Directory
 *       operations ({@code mkdirs}, {@code delete}, {@code rename}) are durable when they
 *       return.</li>
 *   <li><b>Ranged reads</b> ({@link io.duraflow.fs.FileSystem#open(FsPath, long, long)}): exactly
 *       the range or an {@link java.io.EOFException}, for segments of merged checkpoint files.</li>
 *   <li><b>Rename</b> moves one file; it is atomic only where
 *       {@link io.duraflow.fs.FileSystem#isRenameAtomic()} says so (not on object stores), so
 *       commits are made by creating a new name (the job result store's clean file), never by
 *       relying on an atomic rename.</li>
 *   <li><b>Errors</b> are {@link java.io.IOException}s; the ones callers act on are the
 *       {@code java.nio.file} exceptions listed in {@link io.duraflow.fs.FileSystem}, and every
 *       one names the path. Nothing turns an error into "absent".</li>
 * </ul>
 *
 * <h2>Adding an implementation</h2>
 * <ol>
 *   <li>Implement {@link io.duraflow.fs.FileSystem} and its {@link io.duraflow.fs.FsOutputStream};
 *       translate the underlying library's exceptions into the ones the interface names (for
 *       Hadoop: {@code FileNotFoundException} to {@code NoSuchFileException},
 *       {@code FileAlreadyExistsException} to its {@code java.nio.file} namesake, and so on) and
 *       say in the javadoc what {@code sync} and {@code rename} really guarantee there.</li>
 *   <li>Implement {@link io.duraflow.fs.FileSystemFactory} for the scheme and list it in
 *       {@code META-INF/services/io.duraflow.fs.FileSystemFactory} of the implementation's jar.</li>
 *   <li>Extend {@code FileSystemContractTest} (this module's tests) with a test that gives a fresh
 *       directory on the real system (for HDFS: {@code hadoop-client-minicluster}); every test must
 *       pass unchanged.</li>
 * </ol>
 */
package io.duraflow.fs;
