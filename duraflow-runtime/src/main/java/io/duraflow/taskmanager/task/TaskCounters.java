package io.duraflow.taskmanager.task;

/** Per-attempt record counts; touched by the task thread only. */
final class TaskCounters {
    long recordsIn;
    long recordsOut;
}
