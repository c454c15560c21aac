/** The admin key the benchmarks bootstrap their servers with, and the management calls they set up with. */
export const ADMIN_KEY = 'pl_a_bench-admin-key-0000000000000000';

export async function admin(origin: string, method: string, pathName: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${origin}${pathName}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': ADMIN_KEY },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status >= 300) throw new Error(`${method} ${pathName} → ${res.status} ${await res.text()}`);
  return res.json();
}
