package io.duraflow.simulation;

import io.duraflow.config.Configuration;
import io.duraflow.config.RuntimeMode;
import io.duraflow.jobmanager.dispatcher.Dispatcher;
import io.duraflow.jobstore.InMemoryJobGraphStore;
import io.duraflow.jobstore.InMemoryJobResultStore;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.SubmitJobResponse;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TriggerCheckpointRequest;
import io.duraflow.simulation.SimScheduler.SimMailbox;
import io.duraflow.taskmanager.TaskExecutorServices;
import io.duraflow.taskmanager.task.TaskEnvironment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.BooleanSupplier;

/**
 * A whole Duraflow cluster in one JVM, on one thread, driven by one seed: JobManagers (the real
 * Dispatcher, ResourceManager, JobMasters and checkpoint coordinators of each leadership), an
 * in-memory ZooKeeper, TaskManagers (the real TaskExecutor with simulated tasks), the network
 * between them, and the durable stores (in memory, and the job event logs and checkpoints on a
 * temporary directory). {@link #run} steps it; {@link Invariants} are checked after every step.
 */
final class SimCluster {
    private final Random random;
    private final Path root;
    private final Configuration config;
    private final SimScheduler scheduler;
    private final Trace trace = new Trace();
    private final SimNetwork network;
    private final SimZooKeeper zooKeeper;
    private final InMemoryJobResultStore results = new InMemoryJobResultStore();
    private final InMemoryJobGraphStore jobGraphs = new InMemoryJobGraphStore();
    private final Map<String, SimJobManager> jobManagers = new LinkedHashMap<>();
    private final Map<String, SimTaskManager> taskManagers = new LinkedHashMap<>();
    private final Map<String, Integer> incarnations = new HashMap<>();
    private final List<SimTaskManager> allTaskManagers = new ArrayList<>();
    private final Map<String, JobGraph> plans = new HashMap<>();
    private final SimPipelines pipelines = new SimPipelines();
    private final Invariants invariants;
    private final SimMailbox client;
    private final SimProcess clientProcess = new SimProcess("client");
    private final List<String> internalErrors = new ArrayList<>();

    SimCluster(long seed, Path root, Map<String, String> settings) {
        this.random = new Random(seed);
        this.root = root;
        Map<String, String> merged = new LinkedHashMap<>();
        merged.put("heartbeat.interval", "500ms");
        merged.put("heartbeat.timeout", "4s");
        merged.put("rpc.ask-timeout", "2s");
        merged.put("taskmanager.slots", "2");
        merged.put("restart-strategy.type", "fixed-delay");
        merged.put("restart-strategy.fixed-delay.attempts", "1000");
        merged.put("restart-strategy.fixed-delay.delay", "200ms");
        merged.put("execution.batch.job-recovery.enabled", "on");
        merged.put("execution.batch.job-recovery.previous-worker.recovery.timeout", "3s");
        merged.put("jobmanager.adoption.report-timeout", "3s");
        merged.put("job-event.store.write-buffer.size", "1 b");
        merged.put("job-event.store.write-buffer.flush-interval", "100ms");
        merged.putAll(settings);
        this.config = Configuration.fromMap(merged);
        this.scheduler = new SimScheduler(random);
        trace.clock(scheduler::now);
        this.network = new SimNetwork(scheduler, random, 40);
        this.zooKeeper = new SimZooKeeper(scheduler, 2_000, trace);
        this.client = scheduler.mailbox("client", clientProcess);
        this.invariants = new Invariants(this);
    }

    // ------------------------------------------------------------------ what the parts share

    Random random() {
        return random;
    }

    Trace trace() {
        return trace;
    }

    SimNetwork network() {
        return network;
    }

    SimZooKeeper zooKeeper() {
        return zooKeeper;
    }

    SimScheduler scheduler() {
        return scheduler;
    }

    InMemoryJobResultStore results() {
        return results;
    }

    InMemoryJobGraphStore jobGraphs() {
        return jobGraphs;
    }

    Path haDirectory() {
        return root.resolve("ha");
    }

    Path checkpointDirectory() {
        return root.resolve("checkpoints");
    }

    Invariants invariants() {
        return invariants;
    }

    SimPipelines pipelines() {
        return pipelines;
    }

    void internalError(String line) {
        internalErrors.add(line);
        trace.add("INTERNAL " + line);
    }

    List<String> internalErrors() {
        return internalErrors;
    }

    /** The plan of a job, built once per class, parameters, parallelism and mode (plans are immutable). */
    JobGraph plan(String jobClass, Map<String, String> params, int parallelism, RuntimeMode mode) {
        String key = jobClass + params + "/" + parallelism + "/" + mode;
        return plans.computeIfAbsent(key, k -> JobPlans.build(jobClass, params, parallelism, mode));
    }

    // ------------------------------------------------------------------ processes

    SimJobManager startJobManager(String name) {
        SimJobManager jobManager = new SimJobManager(name, this, scheduler, config);
        jobManagers.put(jobManager.address(), jobManager);
        trace.add("start " + name);
        zooKeeper.join(jobManager);
        return jobManager;
    }

    /** Starts TaskManager {@code name} (a new incarnation with a new id if it ran before). */
    SimTaskManager startTaskManager(String name) {
        int incarnation = incarnations.merge(name, 1, Integer::sum) - 1;
        String tmId = incarnation == 0 ? name : name + "-r" + incarnation;
        String address = name + ".sim:6122";
        try {
            SimTaskManager taskManager = new SimTaskManager(tmId, address, this, scheduler, config,
                    root.resolve("tm").resolve(tmId));
            taskManagers.put(address, taskManager);
            allTaskManagers.add(taskManager);
            trace.add("start " + tmId);
            taskManager.start();
            return taskManager;
        } catch (Exception e) {
            throw new IllegalStateException("cannot start TaskManager " + tmId, e);
        }
    }

    /** The JobManager process at an address now (maybe dead), or null. */
    SimJobManager jobManagerAt(String address) {
        return jobManagers.get(address);
    }

    /** The TaskManager process at an address now (maybe dead), or null. */
    SimTaskManager taskManagerAt(String address) {
        return taskManagers.get(address);
    }

    /** The TaskManager with this id, if it runs (a dead incarnation is gone). */
    Optional<SimTaskManager> liveTaskManager(String tmId) {
        return allTaskManagers.stream().filter(tm -> tm.tmId().equals(tmId) && tm.process().alive()).findFirst();
    }

    List<SimTaskManager> liveTaskManagers() {
        return allTaskManagers.stream().filter(tm -> tm.process().alive()).toList();
    }

    List<SimJobManager> jobManagers() {
        return List.copyOf(jobManagers.values());
    }

    /** The JobManager that leads now (its session is the current one), or null. */
    SimJobManager leader() {
        SimZooKeeper.Contender leader = zooKeeper.leader();
        return leader instanceof SimJobManager jobManager ? jobManager : null;
    }

    // ------------------------------------------------------------------ faults

    void kill(SimJobManager jobManager) {
        trace.add("FAULT kill " + jobManager.name());
        jobManager.kill();
        network.died(jobManager.process());
    }

    void freeze(SimJobManager jobManager) {
        trace.add("FAULT freeze " + jobManager.name());
        jobManager.process().freeze();
    }

    void thaw(SimJobManager jobManager) {
        trace.add("FAULT thaw " + jobManager.name());
        jobManager.process().thaw();
    }

    void kill(SimTaskManager taskManager) {
        trace.add("FAULT kill " + taskManager.tmId());
        taskManager.kill();
        pipelines.died(taskManager);
        network.died(taskManager.process());
    }

    // ------------------------------------------------------------------ tasks

    TaskExecutorServices.RunningTask createTask(SimTaskManager taskManager, TaskDeployment deployment, JobGraph graph,
            TaskEnvironment environment) {
        invariants.taskCreated(taskManager, deployment);
        trace.add(taskManager.tmId() + ": starts " + Rpc.describe(deployment.getAttempt()) + " of "
                + deployment.getJmSessionId());
        return graph.mode() == RuntimeMode.STREAMING
                ? new SimStreamTask(this, taskManager, deployment, graph, environment)
                : new SimBatchTask(this, taskManager, deployment, graph, environment);
    }

    void checkpointTriggered(String jmSessionId, TriggerCheckpointRequest request) {
        invariants.checkpointTriggered(jmSessionId, request);
    }

    // ------------------------------------------------------------------ the client

    /**
     * Submits a job as a client that follows the leader: to the published leader, again every 200
     * ms (as a resubmission) until one accepts it.
     */
    void submit(SubmitJobRequest request) {
        trace.add("submit " + request.getJobId());
        trySubmit(request, false);
    }

    private void trySubmit(SubmitJobRequest request, boolean again) {
        SimZooKeeper.Contender leader = zooKeeper.leader();
        SimJobManager target = leader instanceof SimJobManager jobManager ? jobManager : null;
        SubmitJobRequest sent = request.toBuilder().setResubmission(again).build();
        network.<SubmitJobResponse>call(clientProcess, target == null ? null : target.process(),
                target == null ? null : target.main, 10_000, "client", answer -> {
                    SimJobManager.Leadership leadership = target.leadership();
                    if (leadership == null || !leadership.ready) {
                        answer.fail(SimNetwork.unavailable("not the leader"));
                        return;
                    }
                    leadership.dispatcher.submit(sent).whenComplete((response, error) -> {
                        if (error == null) {
                            answer.ok(response);
                        } else {
                            answer.fail(io.duraflow.util.Futures.unwrap(error));
                        }
                    });
                }).whenComplete((response, error) -> client.execute(() -> {
                    if (error == null) {
                        trace.add("submitted " + response.getJobId());
                    } else {
                        client.schedule(() -> trySubmit(request, true), 200);
                    }
                }));
    }

    // ------------------------------------------------------------------ running

    /** Runs until {@code done} holds or {@code limitMs} of virtual time passed; checks the invariants after every step. */
    boolean runUntil(BooleanSupplier done, long limitMs) {
        long until = scheduler.now() + limitMs;
        while (!done.getAsBoolean()) {
            if (!scheduler.step(until)) {
                return false;
            }
            invariants.check();
        }
        return true;
    }

    /** Runs for {@code ms} of virtual time. */
    void runFor(long ms) {
        runUntil(() -> false, ms);
    }

    Optional<JobResultEntry> result(String jobId) {
        return results.getResult(jobId);
    }

    boolean hasResult(String jobId) {
        return results.hasJobResultEntry(jobId);
    }

    /** The event log directory of a job, as the dispatcher lays it out. */
    Path eventLogDirectory(String jobId) {
        return haDirectory().resolve(jobId).resolve(Dispatcher.JOB_EVENTS_DIRECTORY);
    }

    /** Stops what holds resources; the processes' files go with the temporary directory. */
    void close() {
        for (SimTaskManager taskManager : allTaskManagers) {
            if (taskManager.process().alive()) {
                taskManager.kill();
            }
        }
    }
}
