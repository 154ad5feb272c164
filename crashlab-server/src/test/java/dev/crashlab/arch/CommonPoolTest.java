package dev.crashlab.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * No code on the server's class path, main or test, hands work to the common {@link ForkJoinPool}: it has one thread
 * on a 2-core machine, and in the test JVM it is shared by the in-process tests and the child-server classes that run
 * beside them. A minutes-long upload given to {@code CompletableFuture.supplyAsync} there held it, and the in-process
 * tests that needed it (RestAssured's first request initialises Groovy on it) waited 20-40 s: a flaky
 * LocalWorkerSupervisionTest in CI. Blocking work goes to a thread of its own ({@code dev.crashlab.testing.OwnThread})
 * or to a named executor.
 */
class CommonPoolTest {

    static final ArchRule NOTHING_ON_THE_COMMON_POOL = noClasses()
            .should().callMethod(CompletableFuture.class, "supplyAsync", Supplier.class)
            .orShould().callMethod(CompletableFuture.class, "runAsync", Runnable.class)
            .orShould().callMethod(ForkJoinPool.class, "commonPool")
            .because("the common ForkJoinPool has one thread on 2 cores and the tests share it (see CommonPoolTest)");

    @Test
    void noWorkIsGivenToTheCommonForkJoinPool() {
        // test classes too: they arrive as test-classes folders and as the lower modules' -tests.jar
        JavaClasses all = new ClassFileImporter().importPackages("dev.crashlab");
        NOTHING_ON_THE_COMMON_POOL.check(all);
    }
}
