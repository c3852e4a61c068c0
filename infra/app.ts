import { App } from 'aws-cdk-lib';
import { buildApp } from './buildApp.ts';

/** `npx cdk synth|deploy` entry (see cdk.json). Context keys: see infra/stackSettings.ts. */
const app = new App();
buildApp(app);
app.synth();
