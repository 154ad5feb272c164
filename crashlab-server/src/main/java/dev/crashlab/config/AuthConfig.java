package dev.crashlab.config;

import io.smallrye.config.WithDefault;
import java.time.Duration;

/** Accounts, sessions and tokens ({@code crashlab.auth.*}; env {@code CRASHLAB_AUTH_*}). */
public interface AuthConfig {

    /** How long a sign-in lasts. */
    @WithDefault("12h")
    Duration sessionLifetime();

    /** bcrypt work factor for passwords (each step doubles the time; 12 is about a quarter second). */
    @WithDefault("12")
    int bcryptCost();

    /** Lifetime of a personal API token when its creator names none. */
    @WithDefault("90d")
    Duration tokenLifetime();

    /** The longest lifetime a personal API token may have. */
    @WithDefault("366d")
    Duration maxTokenLifetime();

    /**
     * Failed sign-ins one account may have within {@link #loginWindow()} before further tries for it are
     * refused (429 with Retry-After) until the oldest failure leaves the window; 0 turns it off.
     */
    @WithDefault("5")
    int loginFailuresPerAccount();

    /** Failed sign-ins one client address may have within {@link #loginWindow()} (any accounts); 0: off. */
    @WithDefault("20")
    int loginFailuresPerAddress();

    /** The sliding window the sign-in failure limits count in. */
    @WithDefault("15m")
    Duration loginWindow();
}
