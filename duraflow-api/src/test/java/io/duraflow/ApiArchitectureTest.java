package io.duraflow;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** What duraflow-api may depend on, held by the build. */
class ApiArchitectureTest {
    private static final JavaClasses API = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.duraflow.api");

    @Test
    void theApiDependsOnTheJdkAlone() {
        classes().that().resideInAPackage("io.duraflow.api..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "io.duraflow.api..")
                .because("a job's jar is compiled against this module and loaded next to it in its own class"
                        + " loader: anything the API pulled in would be a version the job could not choose, and"
                        + " nothing of the runtime may become something jobs compile against")
                .check(API);
    }

    @Test
    void apiPackagesAreFreeOfCycles() {
        slices().matching("io.duraflow.api.(**)")
                .should().beFreeOfCycles()
                .because("a package cycle makes the two packages one unit that can be neither understood, tested"
                        + " nor moved alone; layers must point one way")
                .check(API);
    }
}
