import { createServer, request, type RequestListener } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';

/**
 * A forward proxy on 127.0.0.1:0 as HTTPS_PROXY and HTTP_PROXY name one: CONNECT tunnels
 * (https: targets) and absolute-form requests (http: targets) are passed on, each recorded
 * with the Proxy-Authorization it came with. `refuse` answers every ask with that status
 * instead; `silent` never answers a CONNECT.
 */

export interface ProxyAsk {
  /** `CONNECT host:port`, or `GET http://host:port/path`. */
  line: string;
  proxyAuthorization: string | undefined;
}

export interface TestProxy {
  url: string;
  /** `url` with `user:password@`, percent-encoded as a person would write it. */
  withCredentials(user: string, password: string): string;
  asked: ProxyAsk[];
  close(): Promise<void>;
}

export async function startProxy(options: { refuse?: number; silent?: boolean } = {}) {
  const asked: ProxyAsk[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    asked.push({
      line: `${req.method} ${req.url}`,
      proxyAuthorization: req.headers['proxy-authorization'],
    });
    if (options.refuse) return void res.writeHead(options.refuse).end();
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const upstream = request(req.url ?? '', { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    asked.push({
      line: `CONNECT ${req.url}`,
      proxyAuthorization: req.headers['proxy-authorization'],
    });
    if (options.silent) return;
    if (options.refuse) return void client.end(`HTTP/1.1 ${options.refuse} Refused\r\n\r\n`);
    const target = new URL(`http://${req.url}`);
    const upstream = connect(Number(target.port), target.hostname.replace(/^\[|\]$/g, ''), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    sockets.add(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    withCredentials: (user: string, password: string) =>
      url.replace('http://', `http://${encodeURIComponent(user)}:${encodeURIComponent(password)}@`),
    asked,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  } satisfies TestProxy;
}

/**
 * A self-signed certificate for `localhost`, 127.0.0.1 and ::1, valid until 2126, made for
 * these tests only (openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes
 * -days 36500 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1).
 * Its key guards nothing but this file's servers.
 */
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBrjCCAVSgAwIBAgIUXb4UYIhuotZmuhC6nvD0bWPNNggwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTIwNzE5MDUzNFoYDzIxMjYxMTEz
MTkwNTM0WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAQf5M/52EvcfO1dG/Tei0VFjz0bGCIMiZ5NV0QwPUWHENV86kTg10YE
Nsj51WESRLjJOU/RsLy9cSO2T9/SwJklo4GBMH8wHQYDVR0OBBYEFMztDfddJMFn
uE09f1Mi0ynKz2m/MB8GA1UdIwQYMBaAFMztDfddJMFnuE09f1Mi0ynKz2m/MA8G
A1UdEwEB/wQFMAMBAf8wLAYDVR0RBCUwI4IJbG9jYWxob3N0hwR/AAABhxAAAAAA
AAAAAAAAAAAAAAABMAoGCCqGSM49BAMCA0gAMEUCICVbD0mMHCcaMqTDcAXQTNYA
wqep+DBpTNzYbmdwn1nDAiEAzbSDTTIKviJfe1dOtqoWGR/Gn8aZS74V3l3YHaoO
hb4=
-----END CERTIFICATE-----
`;
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg2c67vqfm5AAmmxFA
rvzr/grB8HyJcY0XxQN9u7BFws6hRANCAAQf5M/52EvcfO1dG/Tei0VFjz0bGCIM
iZ5NV0QwPUWHENV86kTg10YENsj51WESRLjJOU/RsLy9cSO2T9/SwJkl
-----END PRIVATE KEY-----
`;

/**
 * An https server on 127.0.0.1:0 with the test certificate, which this process is told to
 * trust (Node's default CA list plus it): the client under test has no option to trust
 * anything else, and gets none for the test.
 */
export async function startHttpsServer(handler: RequestListener) {
  const defaults = getCACertificates('default');
  if (!defaults.includes(TEST_CERT)) setDefaultCACertificates([...defaults, TEST_CERT]);
  const server = createHttpsServer({ cert: TEST_CERT, key: TEST_KEY }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
