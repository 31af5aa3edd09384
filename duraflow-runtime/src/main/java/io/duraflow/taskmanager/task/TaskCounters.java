package io.duraflow.taskmanager.task;

/** Per-attempt record counts; touched by the task thread only. */
public final class TaskCounters {
    public long recordsIn;
    public long recordsOut;
}
