/**
 * The job manager's durable stores for high availability: the job graph store and the job result
 * store, built from the configuration by {@link io.duraflow.jobstore.JobStores}; one versioned,
 * CRC32C-checksummed JSON document per job, never an unreadable file taken as absent. See
 * docs/design/job-result-store.md.
 */
package io.duraflow.jobstore;
