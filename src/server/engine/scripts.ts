/**
 * Built-in sample reports of the simulated engine, one per language × specialty: plausible short
 * dictated reports (40–120 words). `--script FILE` replaces them all.
 */
import type { Language, Specialty } from '../../protocol';

const SCRIPTS: Record<Language, Record<Specialty, string>> = {
  fr: {
    general:
      "Compte rendu de consultation. Patient de cinquante-deux ans, vu ce jour pour une toux persistante depuis trois semaines, sans fièvre. L'examen clinique est normal, l'auscultation pulmonaire est libre. Pas de perte de poids. Je propose une radiographie thoracique et un bilan sanguin simple. Revoir le patient dans quinze jours avec les résultats. Conclusion : toux probablement post-virale, surveillance simple.",
    radiology:
      "Scanner thoracique sans injection. Indication : bilan d'une toux chronique. Résultats : pas de nodule pulmonaire suspect. Absence d'épanchement pleural ou péricardique. Le médiastin est de taille normale, sans adénopathie. Les structures osseuses sont sans particularité. Conclusion : examen tomodensitométrique thoracique normal. Pas de lésion parenchymateuse évolutive. Un contrôle n'est pas nécessaire en l'absence de nouveaux symptômes.",
    cardiology:
      "Échocardiographie transthoracique. Le ventricule gauche est de taille normale, avec une fraction d'éjection estimée à soixante pour cent. Pas de trouble de la cinétique segmentaire. Les valves sont fines, sans fuite significative. L'oreillette gauche n'est pas dilatée. Absence d'épanchement péricardique. Conclusion : fonction systolique ventriculaire gauche conservée, pas de valvulopathie. Poursuite du traitement actuel.",
    legal:
      "Objet : mise en demeure. Madame, Monsieur, par la présente, nous vous mettons en demeure de régler la somme de quatre mille euros, due au titre du contrat signé le douze mars. Faute de paiement sous huit jours à compter de la réception de ce courrier, notre client saisira la juridiction compétente. Veuillez agréer l'expression de nos salutations distinguées.",
  },
  en: {
    general:
      'Clinic note. Fifty-two year old patient seen today for a persistent cough of three weeks, without fever. Clinical examination is normal and the chest is clear on auscultation. No weight loss. I have ordered a chest radiograph and basic blood tests. Follow-up in two weeks with the results. Impression: probable post-viral cough, watchful waiting.',
    radiology:
      'CT chest without contrast. Indication: chronic cough. Findings: no suspicious pulmonary nodule. No pleural or pericardial effusion. The mediastinum is normal in size, without lymphadenopathy. Osseous structures are unremarkable. Impression: normal CT examination of the chest. No evolving parenchymal lesion. No follow-up imaging is needed in the absence of new symptoms.',
    cardiology:
      'Transthoracic echocardiogram. The left ventricle is normal in size, with an estimated ejection fraction of sixty percent. No regional wall motion abnormality. The valves are thin, without significant regurgitation. The left atrium is not dilated. No pericardial effusion. Conclusion: preserved left ventricular systolic function, no valvular disease. Continue current treatment.',
    legal:
      'Re: formal notice. Dear Sir or Madam, we hereby give you formal notice to pay the sum of four thousand euros, due under the contract signed on March twelfth. Failing payment within eight days of receipt of this letter, our client will bring the matter before the competent court. Yours faithfully.',
  },
  es: {
    general:
      'Nota de consulta. Paciente de cincuenta y dos años, atendido hoy por tos persistente de tres semanas, sin fiebre. La exploración clínica es normal y la auscultación pulmonar es limpia. Sin pérdida de peso. Solicito una radiografía de tórax y una analítica básica. Control en dos semanas con los resultados. Impresión: tos probablemente posviral, vigilancia.',
    radiology:
      'Tomografía de tórax sin contraste. Indicación: tos crónica. Hallazgos: no se observan nódulos pulmonares sospechosos. No hay derrame pleural ni pericárdico. El mediastino es de tamaño normal, sin adenopatías. Las estructuras óseas no presentan alteraciones. Conclusión: tomografía de tórax normal. Sin lesión parenquimatosa evolutiva. No se precisa control salvo síntomas nuevos.',
    cardiology:
      'Ecocardiograma transtorácico. El ventrículo izquierdo es de tamaño normal, con una fracción de eyección estimada del sesenta por ciento. Sin alteraciones de la contractilidad segmentaria. Las válvulas son finas, sin insuficiencia significativa. La aurícula izquierda no está dilatada. Sin derrame pericárdico. Conclusión: función sistólica conservada, sin valvulopatía. Continuar el tratamiento actual.',
    legal:
      'Asunto: requerimiento de pago. Muy señores nuestros, por medio de la presente les requerimos el pago de la suma de cuatro mil euros, adeudada en virtud del contrato firmado el doce de marzo. De no producirse el pago en el plazo de ocho días desde la recepción de esta carta, nuestro cliente acudirá al juzgado competente. Atentamente.',
  },
  de: {
    general:
      'Sprechstundenbericht. Zweiundfünfzigjähriger Patient, heute vorgestellt wegen eines seit drei Wochen bestehenden Hustens, ohne Fieber. Die klinische Untersuchung ist unauffällig, die Lunge ist auskultatorisch frei. Kein Gewichtsverlust. Ich veranlasse eine Röntgenaufnahme des Thorax und eine einfache Blutuntersuchung. Wiedervorstellung in zwei Wochen mit den Befunden. Beurteilung: wahrscheinlich postviraler Husten, abwartendes Vorgehen.',
    radiology:
      'CT des Thorax ohne Kontrastmittel. Indikation: chronischer Husten. Befund: kein suspekter Lungenrundherd. Kein Pleura- oder Perikarderguss. Das Mediastinum ist normal weit, ohne Lymphadenopathie. Die knöchernen Strukturen sind unauffällig. Beurteilung: unauffällige Computertomographie des Thorax. Keine progrediente Parenchymläsion. Eine Kontrolle ist ohne neue Symptome nicht erforderlich.',
    cardiology:
      'Transthorakale Echokardiographie. Der linke Ventrikel ist normal groß, die Ejektionsfraktion wird auf sechzig Prozent geschätzt. Keine regionalen Wandbewegungsstörungen. Die Klappen sind zart, ohne relevante Insuffizienz. Der linke Vorhof ist nicht dilatiert. Kein Perikarderguss. Beurteilung: erhaltene linksventrikuläre systolische Funktion, kein Klappenvitium. Fortführung der bisherigen Therapie.',
    legal:
      'Betreff: Mahnung. Sehr geehrte Damen und Herren, hiermit fordern wir Sie auf, den Betrag von viertausend Euro zu zahlen, der aus dem am zwölften März unterzeichneten Vertrag geschuldet wird. Erfolgt die Zahlung nicht innerhalb von acht Tagen nach Erhalt dieses Schreibens, wird unser Mandant das zuständige Gericht anrufen. Mit freundlichen Grüßen.',
  },
};

/** The built-in sample report for a language and specialty, or undefined when there is none. */
export function builtInScript(language: string, specialty: string): string | undefined {
  return (SCRIPTS as Record<string, Record<string, string> | undefined>)[language]?.[specialty];
}

export function allBuiltInScripts(): Array<{ language: Language; specialty: Specialty; text: string }> {
  const out: Array<{ language: Language; specialty: Specialty; text: string }> = [];
  for (const [language, bySpecialty] of Object.entries(SCRIPTS)) {
    for (const [specialty, text] of Object.entries(bySpecialty))
      out.push({ language: language as Language, specialty: specialty as Specialty, text });
  }
  return out;
}
