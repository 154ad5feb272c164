package dev.crashlab.account;

import io.quarkus.arc.Arc;
import io.quarkus.hibernate.orm.panache.Panache;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.StartupEvent;

/**
 * Test side: the running test app as at a first start, without starting another app. The accounts are removed (the
 * statement a test profile ran before its app booted until 2026-11-29; their sessions and tokens go with them), then
 * what start-up runs for accounts runs: {@link SetupLink}'s {@code StartupEvent} observer, which finds no accounts and
 * prints and writes the one-time setup link. {@link #observesStartUp()} says that Quarkus runs that same method at
 * every start.
 */
public final class FirstStart {

    private FirstStart() {}

    /** Removes every account, then runs {@link SetupLink}'s start-up observer. */
    public static void withNoAccounts() {
        QuarkusTransaction.requiringNew().run(() -> Panache.getEntityManager().createNativeQuery("DELETE FROM app_user").executeUpdate());
        Arc.container().instance(SetupLink.class).get().start(new StartupEvent());
    }

    /** Whether {@link SetupLink} is among the observers Quarkus notifies of its {@code StartupEvent}. */
    public static boolean observesStartUp() {
        return Arc.container().beanManager().resolveObserverMethods(new StartupEvent()).stream()
                .anyMatch(o -> o.getBeanClass().equals(SetupLink.class));
    }
}
