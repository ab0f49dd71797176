// TypeDoc plugin (typedoc.json "plugin"): the namespace objects in lib/index.ts (`gpuarray`,
// `driver`, `cumath`, ...) list functions defined elsewhere, `toGpu: creation.toGpu`. TypeDoc
// converts each as a Variable whose call signature carries the function's doc comment, and
// validation.notDocumented looks at the Variable only, so every documented member would count as
// undocumented. Here a member whose call signatures are all documented gets its summary moved up
// onto the Variable (one signature) or copied (overloads); a member with an undocumented signature
// is left alone, and the check reports it. No other reflection is touched.
import { Converter, ReflectionKind, ReflectionType } from 'typedoc';

export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_END, (context) => {
    for (const variable of context.project.getReflectionsByKind(ReflectionKind.Variable | ReflectionKind.Property)) {
      if (variable.hasComment() || !(variable.type instanceof ReflectionType)) continue;
      const signatures = variable.type.declaration.getNonIndexSignatures();
      if (signatures.length === 0 || !signatures.every((s) => s.hasComment())) continue;
      const first = signatures[0].comment;
      if (!first.summary.some((part) => part.text.trim() !== '')) continue;
      const comment = first.clone();
      comment.blockTags = [];
      comment.modifierTags = new Set();
      variable.comment = comment;
      if (signatures.length === 1) first.summary = [];
    }
  });
}
