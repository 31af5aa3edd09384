/**
 * The job event log of batch job recovery: what a JobManager records while a batch job runs, so
 * that a new leader can replay it after a failover and re-run only missing work.
 *
 * <pre>
 *   JobManager main thread                          new leader after a failover
 *   ----------------------                          ---------------------------
 *   JobEventWriter.append(JobEvent)                 JobEventReader.readAll(dir)
 *      | buffer, background thread "job-event-writer"   -> events of events.0, events.1, ... in order
 *      v                                                 -> warnings for torn file ends (crashes)
 *   &lt;dir&gt;/events.&lt;n&gt;  (one new file per session)        -> CorruptJobEventLogException: restart the job
 *   &lt;dir&gt;/collected.*   (large collected results,       -> read back with the finishes that refer to them
 *                       synced before their finish)
 *                                                  then new JobEventWriter(dir, ...) -> events.&lt;n+1&gt;
 * </pre>
 *
 * <p>Events are protobuf messages ({@code job_events.proto}, package
 * {@link io.duraflow.jobmanager.events.proto}); the file format is described byte by byte in
 * {@link io.duraflow.jobmanager.events.JobEventLogFormat}. {@link
 * io.duraflow.jobmanager.events.JobEventFormatter} renders events for people. No Java
 * serialization is used.
 */
package io.duraflow.jobmanager.events;
