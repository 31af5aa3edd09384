package io.duraflow.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** What the command line may use of the runtime, held by the build. */
class CliArchitectureTest {
    private static final JavaClasses CLI = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.duraflow.cli");

    @Test
    void cliUsesTheRuntimeOnlyThroughItsEntryPoints() {
        noClasses().that().resideInAPackage("io.duraflow.cli..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.duraflow.exchange..", "io.duraflow.spill..",
                        "io.duraflow.taskmanager.task..", "io.duraflow.jobmanager.jobmaster..")
                .because("the CLI talks to a cluster over gRPC and starts processes through JobManagerRunner and"
                        + " TaskManagerRunner; exchange and spill formats and the task and job master internals"
                        + " must be free to change without it (collected results are decoded by"
                        + " io.duraflow.client.CollectedResults)")
                .check(CLI);
    }
}
