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
}
