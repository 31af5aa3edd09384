package io.duraflow.rest;

/**
 * Where the JobManager that serves a request stands, as far as the REST API cares: only the
 * leader answers about jobs; a standby sends the client to the leader it knows.
 */
public sealed interface Leadership {
    /** This JobManager leads and has recovered its jobs. */
    record Leading() implements Leadership {}

    /** This JobManager leads but is still taking over (recovering stored jobs): ask again shortly. */
    record TakingOver() implements Leadership {}

    /**
     * Another JobManager leads, or none does yet.
     *
     * @param leaderRestUrl the leader's REST URL ({@code http://host:port}), "" if unknown
     * @param leaderAddress the leader's gRPC address, "" if unknown
     */
    record Standby(String leaderRestUrl, String leaderAddress) implements Leadership {}
}
