export function post(url: string): Promise<Response> {
  return fetch(url, { method: 'POST' })
}
