/** Reading IAM statements of a CloudFormation template the way the tests compare them. */

/** What every SES identity ARN of a statement reads as. */
export const MAIL = 'ses:identity';
/** What a function's ARN reads as (built from its name, whatever the stage): `function:<name>`. */
export const functionResource = (name: string) => `function:${name}`;
/** What a secret's SSM parameter ARN reads as: `parameter:<name>` (shared/secrets.ts). */
export const secretResource = (name: string) => `parameter:${name}`;
/** The report worker's. */
export const WORKER = functionResource('reportsWorker');

/** A resource as its references read: GetAtt [X, Arn] → X, Ref X → ${X}, joins concatenated, a function's ARN → function:<name>, the SES identities → MAIL. */
export function resourceName(r: unknown): string {
  if (typeof r === 'string') return r;
  const o = r as Record<string, unknown>;
  if (o['Fn::GetAtt']) return (o['Fn::GetAtt'] as string[])[0]!;
  if (o.Ref) return `\${${o.Ref as string}}`;
  if (o['Fn::Join']) {
    const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
    const joined = parts.map(resourceName).join(sep);
    // `...:function:<service>-<stage>-<name>`: function names have no dash.
    const fn = /:lambda:.*:function:.*-([A-Za-z0-9]+)$/.exec(joined);
    if (fn) return functionResource(fn[1]!);
    // `...:ssm:<region>:<account>:parameter/<service>/<stage>/<name>-secret`
    const parameter = /:ssm:.*:parameter\/.*\/([a-z]+)-secret$/.exec(joined);
    if (parameter) return secretResource(parameter[1]!);
    return /:ses:.*:identity\//.test(joined) ? MAIL : joined;
  }
  if (o['Fn::Select'] || o['Fn::Split']) return '${select}';
  throw new Error(`unexpected resource ${JSON.stringify(r)}`);
}
