/**
 * The job event log of batch job recovery: what a JobManager records while a batch job runs, so
 * that a new leader can replay it after a failover and re-run only missing work. Events are
 * protobuf messages ({@code job_events.proto}); no Java serialization. See
 * docs/design/job-event-log.md.
 */
package io.duraflow.jobmanager.events;
