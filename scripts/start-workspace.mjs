// Where `npm start` keeps its sample workspace (report.md): outside the clone, so that VS Code offers no
// parent git repository, and one per clone (a short hash of the clone's path in the name), so that two
// clones never share (or overwrite) each other's report. It is kept between runs of the same clone.
import { createHash } from 'node:crypto';
import path from 'node:path';

/** The sample workspace of the clone at `root`, under `tmp` (os.tmpdir()), for user `uid`. */
export function startWorkspace(root, tmp, uid) {
  const clone = createHash('sha256').update(path.resolve(root)).digest('hex').slice(0, 8);
  return path.join(tmp, `dictee-start-${uid}`, `${path.basename(path.resolve(root))}-${clone}`, 'workspace');
}

/**
 * The sample report `npm start` opens, in the dictation language (English for any other), and where its cursor
 * goes: after the findings' label (1-based line and column, for code-server's `openFile` payload).
 */
const SAMPLE_REPORTS = {
  en: { title: '# Chest X-ray report', patient: 'Patient: Jane Doe, 52.', label: 'Findings:', signed: 'Signed: Dr. Martin' },
  fr: {
    title: '# Compte rendu de radiographie thoracique',
    patient: 'Patiente : Jeanne Dupont, 52 ans.',
    label: 'Résultats :',
    signed: 'Signé : Dr Martin',
  },
  es: {
    title: '# Informe de radiografía de tórax',
    patient: 'Paciente: Juana Pérez, 52 años.',
    label: 'Hallazgos:',
    signed: 'Firmado: Dr. Martín',
  },
  de: { title: '# Röntgen-Thorax', patient: 'Patientin: Johanna Schmidt, 52 Jahre.', label: 'Befund:', signed: 'Unterschrift: Dr. Martin' },
};

export function sampleReport(language) {
  const r = SAMPLE_REPORTS[language] ?? SAMPLE_REPORTS.en;
  return { text: `${r.title}\n\n${r.patient}\n\n${r.label} \n\n${r.signed}\n`, label: r.label, line: 5, column: r.label.length + 2 };
}
