package io.duraflow;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

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
                        "io.duraflow.jobmanager.scheduler")
                .because("stored results, job graphs and event logs are read by new leaders, the CLI and"
                        + " benchmarks, and the recovery decision is a pure function of recorded facts: none may"
                        + " need a running JobMaster or Dispatcher")
                .check(RUNTIME);
    }

    @Test
    void theJobMasterDoesNotDependOnTheDispatcherSide() {
        noClasses().that().resideInAPackage("io.duraflow.jobmanager.scheduler..")
                .should().dependOnClassesThat().resideInAPackage("io.duraflow.jobmanager")
                .because("a JobMaster runs one job and reaches slots and TaskManagers through interfaces its own"
                        + " package declares (SlotPool, TaskManagerGateways), so it is tested alone with fakes and"
                        + " the dispatcher side may change without it")
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
        noClasses().that().resideInAnyPackage("io.duraflow.fs..", "io.duraflow.util..", "io.duraflow.shuffle..",
                        "io.duraflow.spill..", "io.duraflow.network..")
                .should().dependOnClassesThat().resideInAnyPackage("io.duraflow.jobmanager..",
                        "io.duraflow.taskmanager..", "io.duraflow.ha..", "io.duraflow.jobstore..",
                        "io.duraflow.client..")
                .because("file systems, file formats and spilling operators are used by both processes and by"
                        + " tools; they must not pull in either process")
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
