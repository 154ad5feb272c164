/**
 * Who may use CrashLab: user accounts (bcrypt passwords, login sessions), API tokens (personal, worker-bound
 * and the provisioned admin token), the roles each grants, bundle ownership and the audit trail. Quarkus
 * beans; no HTTP here: {@code web} authenticates requests with {@link dev.crashlab.account.AccountService}
 * and {@link dev.crashlab.account.TokenService}, and checks roles with {@link dev.crashlab.account.Roles}.
 */
package dev.crashlab.account;
