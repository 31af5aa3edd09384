package io.duraflow.rest;

import io.duraflow.rpc.proto.JobStatus;

/** A job's state as the API names it: RUNNING, FINISHED, ... or UNKNOWN for an unreadable stored result. */
final class JobStates {
    private JobStates() {}

    static String name(JobStatus job) {
        if (job.getResultUnreadable()) {
            return "UNKNOWN";
        }
        return switch (job.getState()) {
            case JOB_CREATED -> "CREATED";
            case JOB_RUNNING -> "RUNNING";
            case JOB_FINISHED -> "FINISHED";
            case JOB_FAILED -> "FAILED";
            case JOB_CANCELLING -> "CANCELLING";
            case JOB_CANCELED -> "CANCELED";
            default -> "UNKNOWN";
        };
    }
}
