import net from 'node:net';

/** A port nobody listens on right now (the OS picks it); the caller binds it soon after. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * `count` distinct free ports: every listener stays open until all are bound, so the OS cannot hand
 * the same port out twice (a loop of freePort() can, once a port is closed again).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const srv = net.createServer();
      srv.unref();
      servers.push(srv);
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(0, '127.0.0.1', () => resolve());
      });
    }
    return servers.map((srv) => (srv.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(servers.map((srv) => new Promise((r) => srv.close(() => r(undefined)))));
  }
}

function canListen(port: number, host: string): Promise<boolean | 'unsupported'> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', (e: NodeJS.ErrnoException) =>
      resolve(e.code === 'EAFNOSUPPORT' || e.code === 'EADDRNOTAVAIL' ? 'unsupported' : false),
    );
    srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/**
 * Whether a port is free on every local address. Checks the IPv4 and IPv6 wildcards (DynamoDB
 * Local listens on all interfaces) and loopback (the other services listen on 127.0.0.1).
 */
export async function isPortFree(port: number): Promise<boolean> {
  for (const host of ['127.0.0.1', '0.0.0.0', '::']) {
    if ((await canListen(port, host)) === false) return false;
  }
  return true;
}

export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly variable: string,
    readonly service: string,
  ) {
    super(
      `Port ${port} (${service}) is already in use. Stop whatever listens there, or choose another port: ${variable}=<port> npm start`,
    );
    this.name = 'PortInUseError';
  }
}

/** Throws a PortInUseError naming the environment variable that moves the service elsewhere. */
export async function assertPortFree(port: number, variable: string, service: string): Promise<void> {
  if (!(await isPortFree(port))) throw new PortInUseError(port, variable, service);
}

/** Resolves once something accepts TCP connections on host:port; rejects after timeoutMs. */
export async function waitForPort(port: number, host = '127.0.0.1', timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ port, host });
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`Nothing answered on ${host}:${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
