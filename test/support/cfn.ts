/** Reading IAM statements of a CloudFormation template the way the tests compare them. */
import { SECRET_PARAMETERS } from '../../scripts/serverless/render';

/** What every SES identity ARN of a statement reads as. */
export const MAIL = 'ses:identity';
/** What a function's ARN reads as (built from its name, whatever the stage): `function:<name>`. */
export const functionResource = (name: string) => `function:${name}`;
/** What a secret's SSM parameter ARN reads as: `parameter:<name>` (shared/secrets.ts). */
export const secretResource = (name: string) => `parameter:${name}`;
/** A secret's name by the last segment of its parameter (scripts/serverless/render.ts SECRET_PARAMETERS). */
const SECRET_BY_PARAMETER = new Map(
  Object.entries(SECRET_PARAMETERS).map(([name, parameter]) => [parameter.split('/').pop()!, name]),
);
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
    // `...:ssm:<region>:<account>:parameter/<service>/<stage>/<parameter>`: the secret whose parameter it is.
    const parameter = /:ssm:.*:parameter\/.*\/([a-z-]+)$/.exec(joined);
    const secret = parameter && SECRET_BY_PARAMETER.get(parameter[1]!);
    if (secret) return secretResource(secret);
    return /:ses:.*:identity\//.test(joined) ? MAIL : joined;
  }
  if (o['Fn::Select'] || o['Fn::Split']) return '${select}';
  throw new Error(`unexpected resource ${JSON.stringify(r)}`);
}
