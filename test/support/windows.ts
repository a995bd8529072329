/**
 * A recurring freeze window as the kernel's windows file holds it: Fridays 18:00 in Berlin,
 * for 62 hours (to Monday 08:00), on every deploy lock. `over` changes or adds fields.
 */
export const weekendWindow = (over: Record<string, unknown> = {}) => ({
  name: 'weekend',
  schedule: '0 18 * * 5',
  duration: '62h',
  timeZone: 'Europe/Berlin',
  resources: ['lock:deploy/*'],
  reason: 'no deploys over the weekend',
  ...over,
});
