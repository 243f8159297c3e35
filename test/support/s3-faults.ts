/**
 * A loopback proxy in front of s3rver that answers some requests the way an S3 under trouble does, which
 * the emulator never does: a 5xx (`503 SlowDown`, `500 InternalError`) or no answer at all (the request
 * is accepted and held until the proxy stops, so the client's own timeout must end it). Every other
 * request goes through to s3rver untouched — its Host header too, so the SigV4 signature s3rver checks
 * still matches — and the real client (its timeouts and retries, shared/files/client.ts) meets the
 * faults. Loopback only; stopped by the test that started it.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type S3Fault = 'slow_down' | 'internal_error' | 'stall';

/** Which requests a fault is for: the method and a test on the path (`/<bucket>/<key>`) and headers. */
interface S3Match {
  method: 'GET' | 'PUT' | 'HEAD' | 'DELETE' | 'POST';
  path: RegExp;
  /** PUT with x-amz-copy-source (a copy) or without (a write of bytes); any when unset. */
  copy?: boolean;
}

interface SeenS3Request {
  method: string;
  path: string;
  copy: boolean;
  fault: S3Fault | null;
}

export interface S3FaultProxy {
  /** The endpoint to give the client (S3_ENDPOINT). */
  url: string;
  /** Answers the next `times` requests matching `match` with `fault` (queued after earlier ones). */
  inject(match: S3Match, fault: S3Fault, times?: number): void;
  /** Drops the faults still queued and lets go of the held requests. */
  clear(): void;
  seen: SeenS3Request[];
  stop(): Promise<void>;
}

const errorXml = (code: string, message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message><RequestId>fault</RequestId></Error>`;

export async function startS3FaultProxy(target: string): Promise<S3FaultProxy> {
  const upstream = new URL(target);
  const queue: Array<{ match: S3Match; fault: S3Fault }> = [];
  const seen: SeenS3Request[] = [];
  const held: IncomingMessage[] = [];
  const matches = (m: S3Match, method: string, path: string, copy: boolean) =>
    m.method === method && m.path.test(path) && (m.copy === undefined || m.copy === copy);
  const server: Server = createServer((req, res) => {
    const method = req.method ?? '';
    const path = decodeURIComponent((req.url ?? '').split('?')[0] ?? '');
    const copy = req.headers['x-amz-copy-source'] !== undefined;
    const i = queue.findIndex((q) => matches(q.match, method, path, copy));
    const fault = i >= 0 ? queue.splice(i, 1)[0]!.fault : null;
    seen.push({ method, path, copy, fault });
    if (fault === 'stall') {
      req.resume();
      held.push(req);
      return;
    }
    if (fault) {
      req.resume();
      req.on('end', () => {
        const [status, code] = fault === 'slow_down' ? [503, 'SlowDown'] : [500, 'InternalError'];
        res.writeHead(status, { 'content-type': 'application/xml', 'x-amz-request-id': 'fault' });
        res.end(method === 'HEAD' ? undefined : errorXml(code, 'Injected by the test proxy'));
      });
      return;
    }
    const up = request(
      { hostname: upstream.hostname, port: upstream.port, path: req.url, method, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const release = () => {
    for (const req of held.splice(0)) req.socket.destroy();
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    inject(match, fault, times = 1) {
      for (let n = 0; n < times; n++) queue.push({ match, fault });
    },
    clear() {
      queue.length = 0;
      release();
    },
    seen,
    stop: () =>
      new Promise<void>((r) => {
        release();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
