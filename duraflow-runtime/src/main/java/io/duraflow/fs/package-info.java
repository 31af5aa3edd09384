/**
 * The file-system interface of everything Duraflow keeps durably: code that writes durable data
 * uses {@link io.duraflow.fs.FileSystem} and {@link io.duraflow.fs.FsPath}, never {@code
 * java.nio.file} directly. What the interface promises, and how to add an implementation: see
 * docs/design/file-systems.md.
 */
package io.duraflow.fs;
