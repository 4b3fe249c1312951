// How every Chromium we drive is launched (the page tests, the consumer apps, the browser
// benchmark): Debian's /usr/bin/chromium (or CHROMIUM_PATH) through playwright-core, which never
// downloads a browser; headless, and with nothing of its own reaching the network (no background
// requests, component updates, sync or QUIC), so that "no request left the origin" means ours.
export const chromiumLaunchOptions = {
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};
