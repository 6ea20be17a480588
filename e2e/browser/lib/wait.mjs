// Waiting on a condition with a bound: no fixed sleeps stand in for an event.

/**
 * Polls `test` (sync or async) until it returns a truthy value, which is returned.
 * Throws `timed out after N ms waiting for <what>` (plus `detail()` when given) at the bound.
 */
export async function waitFor(test, { ms = 15_000, what = 'a condition', every = 50, detail } = {}) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await test();
    if (value) return value;
    if (Date.now() > deadline) {
      const extra = detail ? `; ${await detail()}` : '';
      throw new Error(`timed out after ${ms} ms waiting for ${what}${extra}`);
    }
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}
