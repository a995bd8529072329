import { serveNotifications } from '../kernel/notify-thread.js';

serveNotifications();
