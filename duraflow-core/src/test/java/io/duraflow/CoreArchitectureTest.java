package io.duraflow;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The layering of duraflow-core, held by the build: what compiles a job ({@code io.duraflow.plan})
 * on top of the job API (duraflow-api, which knows neither), typed options
 * ({@code io.duraflow.config}) on their own.
 */
class CoreArchitectureTest {
    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.duraflow.plan", "io.duraflow.config");

    @Test
    void packagesAreFreeOfCycles() {
        slices().matching("io.duraflow.(**)")
                .should().beFreeOfCycles()
                .because("a package cycle makes the two packages one unit that can be neither understood, tested"
                        + " nor moved alone; layers must point one way")
                .check(CORE);
    }

    @Test
    void configurationDependsOnNoOtherDuraflowPackage() {
        noClasses().that().resideInAPackage("io.duraflow.config..")
                .should().dependOnClassesThat().resideInAnyPackage("io.duraflow.api..", "io.duraflow.plan..")
                .because("options are read by every process before any job exists; they describe settings, not"
                        + " jobs")
                .check(CORE);
    }
}
