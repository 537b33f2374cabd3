// Preloaded into the soak's service (NODE_OPTIONS=--require …, which may not carry V8 flags itself), in the
// service's process only (the soak's client inherits NODE_OPTIONS too):
// - V8's --trace-gc: one line per collection in the service's log, with the heap's size before and after,
//   from which the soak reads the bytes the service allocated (gcTrace.ts);
// - with DICTEE_SOAK_HEAP_PROFILE=FILE, V8's sampling heap profiler over every allocation, those collected
//   since included (what allocates, not what stays), written to FILE (a .heapprofile for Chrome's DevTools)
//   when the service exits.
'use strict';
if (/server\.js$/.test(process.argv[1] || '')) {
  require('node:v8').setFlagsFromString('--trace-gc');
  const out = process.env.DICTEE_SOAK_HEAP_PROFILE;
  if (out) {
    const inspector = require('node:inspector');
    const session = new inspector.Session();
    session.connect();
    session.post('HeapProfiler.startSampling', {
      samplingInterval: 16384,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    process.on('exit', () => {
      // The in-process session answers at once: the profile is written before the process ends.
      session.post('HeapProfiler.stopSampling', (err, r) => {
        if (!err) require('node:fs').writeFileSync(out, JSON.stringify(r.profile));
      });
    });
  }
}
