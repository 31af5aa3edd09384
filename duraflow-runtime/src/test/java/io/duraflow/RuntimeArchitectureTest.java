package io.duraflow;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import io.duraflow.jobmanager.resourcemanager.SlotPool;
import io.duraflow.jobmanager.resourcemanager.TaskManagerGateways;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The layering of duraflow-runtime, held by the build. From the bottom: building blocks
 * ({@code fs}, {@code util}, {@code shuffle}, {@code spill}); durable formats and decisions
 * ({@code jobstore}, {@code jobmanager.events}, {@code jobmanager.recovery}); high availability
 * ({@code ha}); the JobMaster ({@code jobmanager.scheduler}); the dispatcher side
 * ({@code jobmanager}). TaskManagers ({@code taskmanager..}) sit beside the JobManager and reach it
 * only over gRPC ({@code rpc}).
 */
class RuntimeArchitectureTest {
    private static final JavaClasses RUNTIME = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.duraflow");

    @Test
    void packagesAreFreeOfCycles() {
        slices().matching("io.duraflow.(**)")
                .should().beFreeOfCycles()
                .because("a package cycle makes the two packages one unit that can be neither understood, tested"
                        + " nor moved alone; layers must point one way")
                .check(RUNTIME);
    }

    @Test
    void jobJarsAndTheirClassLoaderKnowOnlyTheJobApi() {
        classes().that().resideInAPackage("io.duraflow.artifact..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "io.duraflow.artifact..",
                        "io.duraflow.api..")
                .because("the client, the JobManager and the TaskManager all check jars and load jobs the same"
                        + " way; where a jar is stored or fetched from is their business, not this package's")
                .check(RUNTIME);
    }

    @Test
    void highAvailabilityDoesNotDependOnTheJobManagerOrTaskManager() {
        noClasses().that().resideInAPackage("io.duraflow.ha..")
                .should().dependOnClassesThat().resideInAnyPackage("io.duraflow.jobmanager..",
                        "io.duraflow.taskmanager..")
                .because("leader election, leader retrieval and the job stores are services both processes use;"
                        + " a dependency back on either ties HA to one process' internals")
                .check(RUNTIME);
    }

    @Test
    void durableFormatsAndRecoveryDoNotDependOnTheJobMasterOrDispatcher() {
        noClasses().that().resideInAnyPackage("io.duraflow.jobstore..", "io.duraflow.jobmanager.events..",
                        "io.duraflow.jobmanager.recovery..")
                .should().dependOnClassesThat().resideInAnyPackage("io.duraflow.jobmanager",
                        "io.duraflow.jobmanager.dispatcher..", "io.duraflow.jobmanager.jobmaster..",
                        "io.duraflow.jobmanager.resourcemanager..")
                .because("stored results, job graphs and event logs are read by new leaders, the CLI and"
                        + " benchmarks, and the recovery decision is a pure function of recorded facts: none may"
                        + " need a running JobMaster or Dispatcher")
                .check(RUNTIME);
    }

    @Test
    void theJobMasterDoesNotDependOnTheDispatcherSide() {
        noClasses().that().resideInAPackage("io.duraflow.jobmanager.jobmaster..")
                .should().dependOnClassesThat().resideInAnyPackage("io.duraflow.jobmanager",
                        "io.duraflow.jobmanager.dispatcher..")
                .because("a JobMaster runs one job and is created by the dispatcher, never the other way round;"
                        + " it is tested alone with fakes and the dispatcher side may change without it")
                .check(RUNTIME);
    }

    @Test
    void theJobMasterReachesTaskManagersOnlyThroughTheResourceManagersInterfaces() {
        noClasses().that().resideInAPackage("io.duraflow.jobmanager.jobmaster..")
                .should().dependOnClassesThat(JavaClass.Predicates.resideInAPackage(
                        "io.duraflow.jobmanager.resourcemanager..")
                        .and(DescribedPredicate.not(JavaClass.Predicates.belongToAnyOf(SlotPool.class,
                                TaskManagerGateways.class))))
                .because("slots and TaskManager calls reach a job master through SlotPool and"
                        + " TaskManagerGateways, which tests replace with fakes; the resource manager's"
                        + " registration, heartbeats and transport stay its own")
                .check(RUNTIME);
    }

    @Test
    void theResourceManagerKnowsNoJob() {
        noClasses().that().resideInAPackage("io.duraflow.jobmanager.resourcemanager..")
                .should().dependOnClassesThat().resideInAnyPackage("io.duraflow.jobmanager",
                        "io.duraflow.jobmanager.dispatcher..", "io.duraflow.jobmanager.jobmaster..")
                .because("the resource manager serves every job of a leadership with TaskManagers and slots;"
                        + " what a job does with them is the job master's business")
                .check(RUNTIME);
    }

    @Test
    void theDispatcherDoesNotDependOnProcessStartUp() {
        noClasses().that().resideInAPackage("io.duraflow.jobmanager.dispatcher..")
                .should().dependOnClassesThat().resideInAPackage("io.duraflow.jobmanager")
                .because("the process start-up (gRPC server, leader election, REST) creates a dispatcher per"
                        + " leadership session; the dispatcher is tested without a process")
                .check(RUNTIME);
    }

    @Test
    void theJobManagerPackagesAreFreeOfCycles() {
        slices().matching("io.duraflow.jobmanager.(*)..")
                .should().beFreeOfCycles()
                .because("dispatcher, resource manager, job master, recovery planning and the event log are"
                        + " layered: each may be read and tested with only what is below it")
                .check(RUNTIME);
    }

    @Test
    void batchAndStreamingExchangesShareOnlyTheFrameCodec() {
        noClasses().that().resideInAPackage("io.duraflow.exchange.blocking..")
                .should().dependOnClassesThat().resideInAPackage("io.duraflow.exchange.pipelined..")
                .because("a batch exchange (files, fetched after the producer finished) and a streaming one"
                        + " (network buffers, credits, barriers) share only io.duraflow.exchange's frames")
                .check(RUNTIME);
        noClasses().that().resideInAPackage("io.duraflow.exchange.pipelined..")
                .should().dependOnClassesThat().resideInAPackage("io.duraflow.exchange.blocking..")
                .because("a batch exchange (files, fetched after the producer finished) and a streaming one"
                        + " (network buffers, credits, barriers) share only io.duraflow.exchange's frames")
                .check(RUNTIME);
    }

    @Test
    void taskManagerDoesNotDependOnJobManager() {
        noClasses().that().resideInAPackage("io.duraflow.taskmanager..")
                .should().dependOnClassesThat().resideInAPackage("io.duraflow.jobmanager..")
                .because("TaskManagers and JobManagers are separate processes that talk only over gRPC"
                        + " (io.duraflow.rpc); a shared class would hide a message that crosses a process")
                .check(RUNTIME);
    }

    @Test
    void jobManagerDoesNotDependOnTaskManager() {
        noClasses().that().resideInAPackage("io.duraflow.jobmanager..")
                .should().dependOnClassesThat().resideInAPackage("io.duraflow.taskmanager..")
                .because("TaskManagers and JobManagers are separate processes that talk only over gRPC"
                        + " (io.duraflow.rpc); a shared class would hide a message that crosses a process")
                .check(RUNTIME);
    }

    @Test
    void buildingBlocksDoNotDependOnProcesses() {
        noClasses().that().resideInAnyPackage("io.duraflow.fs..", "io.duraflow.util..", "io.duraflow.exchange..",
                        "io.duraflow.spill..")
                .should().dependOnClassesThat().resideInAnyPackage("io.duraflow.jobmanager..",
                        "io.duraflow.taskmanager..", "io.duraflow.ha..", "io.duraflow.jobstore..",
                        "io.duraflow.client..")
                .because("file systems, the data exchanges' formats and channels, and spilling operators are"
                        + " used by tasks, tools and tests without a process around them; they must not pull"
                        + " in either process")
                .check(RUNTIME);
    }

    @Test
    void theRestApiReachesTheJobManagerOnlyThroughItsGateway() {
        noClasses().that().resideInAPackage("io.duraflow.rest..")
                .should().dependOnClassesThat().resideInAnyPackage("io.duraflow.jobmanager..",
                        "io.duraflow.taskmanager..", "io.duraflow.ha..")
                .because("the REST API answers from the DispatcherGateway service the command line calls"
                        + " (RestBackend), so both show the same facts from the same query code")
                .check(RUNTIME);
    }
}
