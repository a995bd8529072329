import { serveNotifications } from '../kernel/notify/notify-thread.js';

serveNotifications();
