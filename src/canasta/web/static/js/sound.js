// Short synthesized sounds (WebAudio); silent unless the player turns sound on.
let ctx = null;
let enabled = false;

export function setSound(on) { enabled = !!on; }

function tone(freq, start, dur, type = "triangle", gain = 0.08) {
  const o = ctx.createOscillator();
  const g = ctx.createGain();
  o.type = type;
  o.frequency.value = freq;
  g.gain.setValueAtTime(gain, ctx.currentTime + start);
  g.gain.exponentialRampToValueAtTime(0.0001, ctx.currentTime + start + dur);
  o.connect(g).connect(ctx.destination);
  o.start(ctx.currentTime + start);
  o.stop(ctx.currentTime + start + dur + 0.02);
}

export function play(kind) {
  if (!enabled) return;
  try {
    ctx = ctx || new (window.AudioContext || window.webkitAudioContext)();
    if (kind === "deal") for (let i = 0; i < 5; i++) tone(900 - i * 40, i * 0.06, 0.05, "square", 0.03);
    else if (kind === "meld") { tone(523, 0, 0.09); tone(784, 0.08, 0.12); }
    else if (kind === "discard") tone(300, 0, 0.08, "sine", 0.1);
    else if (kind === "error") tone(160, 0, 0.15, "sawtooth", 0.04);
    else tone(660, 0, 0.06);
  } catch { /* audio unavailable: stay silent */ }
}
