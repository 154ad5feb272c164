// Who is signed in, as the server says (GET /api/auth/me), shared by every component. The server decides
// what each role may do; the UI only hides what the caller's roles cannot do.
import { useSyncExternalStore } from 'react';
import type { components } from './api-types.ts';

/** Who is signed in: name, roles, whether by a password session (`session`) and whether an account is behind it (`account`). */
export type Me = components['schemas']['Me'];

export type SessionState =
  | { kind: 'loading' }
  | { kind: 'signed-out'; setupOpen: boolean }
  | { kind: 'signed-in'; me: Me };

let state: SessionState = { kind: 'loading' };
const listeners = new Set<() => void>();

function set(next: SessionState): void {
  state = next;
  listeners.forEach((l) => l());
}

export function useSession(): SessionState {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => state,
  );
}

/** Whether the signed-in caller holds {@code role} (roles arrive with their implications applied). */
export function can(s: SessionState, role: string): boolean {
  return s.kind === 'signed-in' && s.me.roles.includes(role);
}

export function useCan(role: string): boolean {
  return can(useSession(), role);
}

async function setupOpen(): Promise<boolean> {
  try {
    const r = await fetch('/api/auth/state', { headers: { Accept: 'application/json' } });
    return r.ok ? ((await r.json()) as { setupOpen: boolean }).setupOpen : false;
  } catch {
    return false;
  }
}

/** Asks the server who we are; signed out on 401. */
export async function refreshSession(): Promise<void> {
  try {
    const r = await fetch('/api/auth/me', { headers: { Accept: 'application/json' } });
    if (r.ok) {
      set({ kind: 'signed-in', me: (await r.json()) as Me });
      return;
    }
  } catch {
    // unreachable server: show the sign-in page, whose own request will say so
  }
  set({ kind: 'signed-out', setupOpen: await setupOpen() });
}

/** Called when any API call answers 401: the session ended (expired, signed out elsewhere). */
export function sessionEnded(): void {
  if (state.kind === 'signed-in') void refreshSession();
}

export function signedIn(me: Me): void {
  set({ kind: 'signed-in', me });
}

export async function signOut(): Promise<void> {
  try {
    await fetch('/api/auth/logout', { method: 'POST' });
  } finally {
    set({ kind: 'signed-out', setupOpen: false });
  }
}
